#include "graph/import_onnx.h"

#include <cstring>
#include <exception>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/defs/shape_inference.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace tunefarm::graph {
namespace {

// Most names listed in one error message.
constexpr size_t kMaxListed = 12;

std::string ListNames(const std::vector<std::string>& names) {
  std::vector<std::string> shown(names.begin(), names.begin() + std::min(names.size(), kMaxListed));
  std::string out = absl::StrJoin(shown, ", ");
  if (names.size() > kMaxListed) absl::StrAppend(&out, " and ", names.size() - kMaxListed, " more");
  return out;
}

// The graph layer's element type of an ONNX one: float for float, int64 for the integer and
// boolean types shape computations use. Nullopt: another type.
std::optional<DType> ToDType(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT:
      return DType::kFloat32;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::BOOL:
      return DType::kInt64;
    default:
      return std::nullopt;
  }
}

// Fixed-width little-endian values of raw_data.
template <typename T>
bool ReadRaw(const std::string& raw, int64_t count, std::vector<T>* out) {
  if (static_cast<int64_t>(raw.size()) != count * static_cast<int64_t>(sizeof(T))) return false;
  out->resize(count);
  if (count > 0) std::memcpy(out->data(), raw.data(), raw.size());
  return true;
}

// An integer tensor's values as int64: from raw_data as little-endian T, or from `typed` (the
// proto's repeated field for the type). False: the count does not match.
template <typename T, typename Field>
bool ReadInts(const onnx::TensorProto& p, const Field& typed, int64_t count,
              std::vector<int64_t>* out) {
  std::vector<T> raw;
  if (p.has_raw_data()) {
    if (!ReadRaw(p.raw_data(), count, &raw)) return false;
    out->assign(raw.begin(), raw.end());
    return true;
  }
  if (typed.size() != count) return false;
  out->assign(typed.begin(), typed.end());
  return true;
}

// A TensorProto (an initializer or a Constant's value) as a constant tensor.
absl::StatusOr<Tensor> ConvertTensor(const onnx::TensorProto& p, const std::string& name) {
  Tensor t;
  t.name = name;
  t.constant = true;
  for (int64_t d : p.dims()) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("tensor '", name, "': negative dim"));
    t.shape.push_back(d);
  }
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    return absl::UnimplementedError(
        absl::StrCat("tensor '", name,
                     "' keeps its data in an external file; save the model with its "
                     "weights inside (onnx.save(model, path, save_as_external_data=False))"));
  }
  std::optional<DType> dt = ToDType(p.data_type());
  if (!dt.has_value()) {
    return absl::UnimplementedError(absl::StrCat("tensor '", name, "' has ONNX element type ",
                                                 p.data_type(),
                                                 "; only float32 and integer "
                                                 "shape tensors are supported"));
  }
  t.dtype = *dt;
  int64_t count = 1;
  for (int64_t d : t.shape) {
    if (d > 0 && count > (int64_t{1} << 40) / d) {
      return absl::InvalidArgumentError(absl::StrCat("tensor '", name, "' is impossibly large"));
    }
    count *= d;
  }
  const std::string corrupt =
      absl::StrCat("tensor '", name, "': its data does not match its shape ", ShapeString(t.shape));
  const bool raw = p.has_raw_data();
  switch (p.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (raw) {
        if (!ReadRaw(p.raw_data(), count, &t.f32)) return absl::InvalidArgumentError(corrupt);
      } else {
        if (p.float_data_size() != count) return absl::InvalidArgumentError(corrupt);
        t.f32.assign(p.float_data().begin(), p.float_data().end());
      }
      break;
    case onnx::TensorProto::INT64:
      if (!ReadInts<int64_t>(p, p.int64_data(), count, &t.i64)) {
        return absl::InvalidArgumentError(corrupt);
      }
      break;
    case onnx::TensorProto::INT32:
      if (!ReadInts<int32_t>(p, p.int32_data(), count, &t.i64)) {
        return absl::InvalidArgumentError(corrupt);
      }
      break;
    case onnx::TensorProto::BOOL:  // raw bytes, or int32_data
      if (!ReadInts<uint8_t>(p, p.int32_data(), count, &t.i64)) {
        return absl::InvalidArgumentError(corrupt);
      }
      break;
  }
  return t;
}

absl::StatusOr<Attribute> ConvertAttribute(const onnx::AttributeProto& a, const std::string& node) {
  Attribute out;
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      out.kind = Attribute::Kind::kInt;
      out.i = a.i();
      break;
    case onnx::AttributeProto::FLOAT:
      out.kind = Attribute::Kind::kFloat;
      out.f = a.f();
      break;
    case onnx::AttributeProto::INTS:
      out.kind = Attribute::Kind::kInts;
      out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::FLOATS:
      out.kind = Attribute::Kind::kFloats;
      out.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case onnx::AttributeProto::STRING:
      out.kind = Attribute::Kind::kString;
      out.s = a.s();
      break;
    case onnx::AttributeProto::TENSOR: {
      out.kind = Attribute::Kind::kTensor;
      absl::StatusOr<Tensor> t = ConvertTensor(a.t(), node);
      if (!t.ok()) return t.status();
      out.t = *std::move(t);
      break;
    }
    default:
      // Attributes of other kinds (graphs of control flow, sparse tensors) are kept out; an
      // operator that needs one is unsupported anyway.
      out.kind = Attribute::Kind::kString;
      break;
  }
  return out;
}

// Binds the model's dynamic input dimensions (and applies explicit input shapes); lists every
// dimension left dynamic.
absl::Status BindInputs(onnx::ModelProto& model, const std::set<std::string>& initializers,
                        const ImportOptions& options) {
  std::set<std::string> seen;
  std::vector<std::string> unbound;
  for (onnx::ValueInfoProto& in : *model.mutable_graph()->mutable_input()) {
    if (initializers.count(in.name())) continue;
    seen.insert(in.name());
    onnx::TypeProto_Tensor* tt = in.mutable_type()->mutable_tensor_type();
    auto bound = options.input_shapes.find(in.name());
    if (bound != options.input_shapes.end()) {
      if (tt->has_shape() && tt->shape().dim_size() != static_cast<int>(bound->second.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", in.name(), "' has rank ", tt->shape().dim_size(), " but its binding ",
            ShapeString(bound->second), " has rank ", bound->second.size()));
      }
      tt->mutable_shape()->clear_dim();
      for (int64_t d : bound->second) tt->mutable_shape()->add_dim()->set_dim_value(d);
      continue;
    }
    if (!tt->has_shape()) {
      unbound.push_back(absl::StrCat("'", in.name(), "' (no shape)"));
      continue;
    }
    for (int d = 0; d < tt->shape().dim_size(); ++d) {
      onnx::TensorShapeProto_Dimension* dim = tt->mutable_shape()->mutable_dim(d);
      if (dim->has_dim_value() && dim->dim_value() >= 0) continue;
      auto value = dim->has_dim_param() ? options.dim_values.find(dim->dim_param())
                                        : options.dim_values.end();
      if (value != options.dim_values.end()) {
        dim->set_dim_value(value->second);
        continue;
      }
      unbound.push_back(
          absl::StrCat("'", in.name(), "' dimension ", d,
                       dim->has_dim_param() ? absl::StrCat(" ('", dim->dim_param(), "')") : ""));
    }
  }
  for (const auto& [name, shape] : options.input_shapes) {
    if (!seen.count(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input_shape names '", name, "', which is not an input of the model"));
    }
  }
  if (!unbound.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("dynamic input dimensions with no binding: ", ListNames(unbound),
                     "; bind them with --input_shape NAME=D0,D1,... (e.g. input=1,3,224,224)"));
  }
  return absl::OkStatus();
}

// The static shape and element type of a value; nullopt when inference left it dynamic.
std::optional<Tensor> StaticTensor(const onnx::ValueInfoProto& v) {
  if (!v.type().has_tensor_type()) return std::nullopt;
  const onnx::TypeProto_Tensor& tt = v.type().tensor_type();
  std::optional<DType> dt = ToDType(tt.elem_type());
  if (!dt.has_value() || !tt.has_shape()) return std::nullopt;
  Tensor t;
  t.name = v.name();
  t.dtype = *dt;
  for (const auto& d : tt.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return std::nullopt;
    t.shape.push_back(d.dim_value());
  }
  return t;
}

}  // namespace

absl::StatusOr<Graph> ImportOnnx(const std::string& model_bytes, const ImportOptions& options) {
  if (static_cast<int64_t>(model_bytes.size()) > kMaxModelBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the model is ", model_bytes.size(), " bytes; at most ", kMaxModelBytes));
  }
  onnx::ModelProto model;
  if (model_bytes.empty() || !model.ParseFromString(model_bytes) || !model.has_graph()) {
    return absl::InvalidArgumentError("not an ONNX model (the protobuf does not parse as one)");
  }
  std::set<std::string> initializers;
  for (const onnx::TensorProto& t : model.graph().initializer()) initializers.insert(t.name());
  if (absl::Status s = BindInputs(model, initializers, options); !s.ok()) return s;
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ONNX checker rejects the model: ", e.what()));
  }
  try {
    onnx::ShapeInferenceOptions inference(/*check_type_val=*/true, /*strict_mode_val=*/1,
                                          /*data_prop_val=*/true);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), inference);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("ONNX shape inference fails: ", e.what()));
  }

  Graph g;
  g.name = model.graph().name();
  std::vector<std::string> unsupported_types;
  for (const onnx::TensorProto& p : model.graph().initializer()) {
    absl::StatusOr<Tensor> t = ConvertTensor(p, p.name());
    if (!t.ok()) return t.status();
    g.tensors[p.name()] = *std::move(t);
  }
  std::map<std::string, const onnx::ValueInfoProto*> infos;
  for (const auto& v : model.graph().input()) infos[v.name()] = &v;
  for (const auto& v : model.graph().value_info()) infos[v.name()] = &v;
  for (const auto& v : model.graph().output()) infos[v.name()] = &v;
  for (const auto& v : model.graph().input()) {
    if (initializers.count(v.name())) continue;
    std::optional<Tensor> t = StaticTensor(v);
    if (!t.has_value()) {
      return absl::UnimplementedError(absl::StrCat(
          "input '", v.name(), "' is not a float32 or integer tensor of static shape"));
    }
    g.tensors[v.name()] = *t;
    g.inputs.push_back(v.name());
  }
  std::vector<std::string> dynamic, other_domain;
  int index = 0;
  int64_t opset = 0;
  for (const onnx::OperatorSetIdProto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  }
  for (const onnx::NodeProto& p : model.graph().node()) {
    Node n;
    n.op = p.op_type();
    n.name = p.name().empty() ? absl::StrCat(p.op_type(), "_", index) : p.name();
    ++index;
    if (!p.domain().empty() && p.domain() != "ai.onnx") {
      other_domain.push_back(absl::StrCat(n.name, " (", p.domain(), "::", p.op_type(), ")"));
      continue;
    }
    n.inputs.assign(p.input().begin(), p.input().end());
    n.outputs.assign(p.output().begin(), p.output().end());
    for (const onnx::AttributeProto& a : p.attribute()) {
      absl::StatusOr<Attribute> attr = ConvertAttribute(a, n.name);
      if (!attr.ok()) return attr.status();
      n.attrs[a.name()] = *std::move(attr);
    }
    if (n.op == "Softmax" && !n.attrs.count("axis")) {
      // The default axis changed in opset 13 (and with it the meaning: one axis, not all
      // from it on).
      n.attrs["axis"].i = opset >= 13 ? -1 : 1;
    }
    if (n.op == "Constant") {
      auto value = n.attrs.find("value");
      if (value == n.attrs.end() || value->second.kind != Attribute::Kind::kTensor ||
          n.outputs.size() != 1) {
        return absl::UnimplementedError(
            absl::StrCat("Constant node '", n.name, "': only a 'value' tensor is supported"));
      }
      Tensor t = value->second.t;
      t.name = n.outputs[0];
      g.tensors[t.name] = std::move(t);
      continue;
    }
    for (const std::string& out : n.outputs) {
      if (out.empty()) continue;
      auto info = infos.find(out);
      std::optional<Tensor> t = info == infos.end() ? std::nullopt : StaticTensor(*info->second);
      if (!t.has_value() && n.op == "Slice" && !n.inputs.empty() && g.Find(n.inputs[0])) {
        // Bounds computed by operators onnx's data propagation skips (Div): constant folding
        // evaluates them and gives the slice its shape.
        t = Tensor{};
        t->name = out;
        t->dtype = g.Find(n.inputs[0])->dtype;
        t->shape_known = false;
      }
      if (!t.has_value()) {
        dynamic.push_back(absl::StrCat(n.name, " (", n.op, ")"));
        break;
      }
      g.tensors[out] = *t;
    }
    g.nodes.push_back(std::move(n));
  }
  if (!other_domain.empty()) {
    return absl::UnimplementedError(
        absl::StrCat("operators outside the default ONNX domain: ", ListNames(other_domain)));
  }
  if (!dynamic.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape inference leaves the outputs of these nodes without a static float32 or integer "
        "shape: ",
        ListNames(dynamic), " (bind dynamic input dimensions with --input_shape)"));
  }
  for (const auto& v : model.graph().output()) {
    if (g.Find(v.name()) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", v.name(), "' is not computed by any node"));
    }
    g.outputs.push_back(v.name());
  }
  for (const Node& n : g.nodes) {
    for (const std::string& in : n.inputs) {
      if (!in.empty() && g.Find(in) == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("node '", n.name, "' reads '", in, "', which nothing defines"));
      }
    }
  }
  return g;
}

absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the model file ", path));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size > kMaxModelBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, " is ", size, " bytes; a model may have at most ", kMaxModelBytes));
  }
  in.seekg(0);
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), size);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the model file ", path));
  return ImportOnnx(bytes, options);
}

}  // namespace tunefarm::graph
