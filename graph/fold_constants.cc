#include "graph/fold_constants.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/slice_window.h"

namespace tunefarm::graph {
namespace {

// Largest constant folding computes (a shape computation or a transformed weight).
constexpr int64_t kMaxFoldedElements = int64_t{1} << 28;

// A constant's values as doubles (either dtype), and back.
std::vector<double> Values(const Tensor& t) {
  return t.dtype == DType::kFloat32 ? std::vector<double>(t.f32.begin(), t.f32.end())
                                    : std::vector<double>(t.i64.begin(), t.i64.end());
}

void SetValues(Tensor& t, const std::vector<double>& v) {
  t.constant = true;
  t.f32.clear();
  t.i64.clear();
  if (t.dtype == DType::kFloat32) {
    t.f32.assign(v.begin(), v.end());
  } else {
    for (double x : v) t.i64.push_back(static_cast<int64_t>(x));
  }
}

std::vector<int64_t> Strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// Offset in `in` (right-aligned, numpy broadcasting) of the output element at `index`.
int64_t BroadcastOffset(const std::vector<int64_t>& index, const std::vector<int64_t>& out_shape,
                        const std::vector<int64_t>& in_shape) {
  const std::vector<int64_t> strides = Strides(in_shape);
  int64_t off = 0;
  if (in_shape.size() > out_shape.size()) return 0;  // refused by Evaluate before any read
  const size_t lead = out_shape.size() - in_shape.size();
  for (size_t d = 0; d < in_shape.size(); ++d) {
    if (in_shape[d] != 1) off += index[lead + d] * strides[d];
  }
  return off;
}

// Calls f(index) for every index of `shape`, row-major.
void ForEachIndex(const std::vector<int64_t>& shape,
                  const std::function<void(const std::vector<int64_t>&)>& f) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    f(index);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

int64_t NormalizeAxis(int64_t axis, size_t rank) {
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

// Evaluates `n` (all inputs constant) into its output tensor `out` (shape and dtype set by
// shape inference). False: an operator this folder does not evaluate.
absl::StatusOr<bool> Evaluate(const Graph& g, const Node& n, Tensor& out) {
  std::vector<const Tensor*> in;
  for (const std::string& name : n.inputs) in.push_back(name.empty() ? nullptr : g.Find(name));
  const std::string where = absl::StrCat("node '", n.name, "' (", n.op, ")");
  static const std::map<std::string, std::function<double(double, double)>> kBinary = {
      {"Add", [](double a, double b) { return a + b; }},
      {"Sub", [](double a, double b) { return a - b; }},
      {"Mul", [](double a, double b) { return a * b; }},
      {"Div", [](double a, double b) { return a / b; }},
      {"Pow", [](double a, double b) { return std::pow(a, b); }},
      {"Equal", [](double a, double b) { return a == b ? 1.0 : 0.0; }},
  };
  static const std::map<std::string, std::function<double(double)>> kUnary = {
      {"Sqrt", [](double a) { return std::sqrt(a); }},
      {"Neg", [](double a) { return -a; }},
      {"Reciprocal", [](double a) { return 1.0 / a; }},
      {"Cast", [](double a) { return a; }},
  };
  // A folded tensor is materialized here: a model may not make it arbitrarily large.
  if (out.NumElements() < 0 || out.NumElements() > kMaxFoldedElements) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": a constant of shape ", ShapeString(out.shape), " is too large"));
  }
  std::vector<double> result;
  if (auto b = kBinary.find(n.op); b != kBinary.end()) {
    if (in.size() != 2 || !in[0] || !in[1]) return false;
    if (in[0]->shape.size() > out.shape.size() || in[1]->shape.size() > out.shape.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": operands of higher rank than the result"));
    }
    const std::vector<double> x = Values(*in[0]), y = Values(*in[1]);
    const bool int_div = n.op == "Div" && out.dtype == DType::kInt64;
    ForEachIndex(out.shape, [&](const std::vector<int64_t>& idx) {
      const double a = x[BroadcastOffset(idx, out.shape, in[0]->shape)];
      const double c = y[BroadcastOffset(idx, out.shape, in[1]->shape)];
      result.push_back(int_div ? (c == 0 ? 0 : std::trunc(a / c)) : b->second(a, c));
    });
  } else if (auto u = kUnary.find(n.op); u != kUnary.end()) {
    if (in.empty() || !in[0]) return false;
    for (double v : Values(*in[0])) result.push_back(u->second(v));
  } else if (n.op == "Reshape" || n.op == "Unsqueeze" || n.op == "Squeeze" || n.op == "Flatten") {
    if (in.empty() || !in[0]) return false;
    result = Values(*in[0]);
  } else if (n.op == "Concat") {
    const int64_t axis = NormalizeAxis(n.Int("axis", 0), out.shape.size());
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= out.shape[d];
    for (int64_t o = 0; o < outer; ++o) {
      for (const Tensor* t : in) {
        if (!t) return false;
        const std::vector<double> v = Values(*t);
        const int64_t chunk = outer == 0 ? 0 : static_cast<int64_t>(v.size()) / outer;
        result.insert(result.end(), v.begin() + o * chunk, v.begin() + (o + 1) * chunk);
      }
    }
  } else if (n.op == "Gather") {
    if (in.size() != 2 || !in[0] || !in[1]) return false;
    const int64_t axis = NormalizeAxis(n.Int("axis", 0), in[0]->shape.size());
    if (axis < 0 || axis >= static_cast<int64_t>(in[0]->shape.size())) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": axis out of range"));
    }
    const std::vector<double> data = Values(*in[0]);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= in[0]->shape[d];
    for (size_t d = axis + 1; d < in[0]->shape.size(); ++d) inner *= in[0]->shape[d];
    const int64_t extent = in[0]->shape[axis];
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i : in[1]->i64) {
        if (i < 0) i += extent;
        if (i < 0 || i >= extent) {
          return absl::InvalidArgumentError(absl::StrCat(where, ": index out of range"));
        }
        for (int64_t k = 0; k < inner; ++k) result.push_back(data[(o * extent + i) * inner + k]);
      }
    }
  } else if (n.op == "Transpose") {
    if (in.empty() || !in[0]) return false;
    const std::vector<int64_t>& s = in[0]->shape;
    const std::vector<int64_t> perm = TransposePerm(n, s.size());
    if (perm.size() != s.size() || perm.size() != out.shape.size()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": perm does not match the rank"));
    }
    for (int64_t p : perm) {
      if (p < 0 || p >= static_cast<int64_t>(s.size())) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": perm out of range"));
      }
    }
    const std::vector<double> data = Values(*in[0]);
    const std::vector<int64_t> strides = Strides(s);
    ForEachIndex(out.shape, [&](const std::vector<int64_t>& idx) {
      int64_t off = 0;
      for (size_t d = 0; d < perm.size(); ++d) off += idx[d] * strides[perm[d]];
      result.push_back(data[off]);
    });
  } else if (n.op == "Slice") {
    if (in.empty() || !in[0]) return false;
    const std::vector<int64_t>& s = in[0]->shape;
    absl::StatusOr<std::optional<SliceWindow>> w = SliceWindowOf(g, n, s);
    if (!w.ok()) return w.status();
    if (!w->has_value()) return false;
    if ((*w)->extent != out.shape) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": its bounds give ",
                                                     ShapeString((*w)->extent), ", not ",
                                                     ShapeString(out.shape)));
    }
    const std::vector<double> data = Values(*in[0]);
    const std::vector<int64_t> strides = Strides(s);
    ForEachIndex(out.shape, [&](const std::vector<int64_t>& idx) {
      int64_t off = 0;
      for (size_t d = 0; d < s.size(); ++d) {
        off += ((*w)->start[d] + idx[d] * (*w)->step[d]) * strides[d];
      }
      result.push_back(data[off]);
    });
  } else if (n.op == "ConstantOfShape") {
    auto v = n.attrs.find("value");
    double fill = 0;
    if (v != n.attrs.end() && v->second.kind == Attribute::Kind::kTensor) {
      std::vector<double> fv = Values(v->second.t);
      if (!fv.empty()) fill = fv[0];
    }
    result.assign(out.NumElements(), fill);
  } else {
    return false;
  }
  if (static_cast<int64_t>(result.size()) != out.NumElements()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": computes ", result.size(),
                                                   " values for a tensor of shape ",
                                                   ShapeString(out.shape)));
  }
  SetValues(out, result);
  return true;
}

}  // namespace

absl::Status FoldConstants(Graph& g) {
  std::vector<Node> kept;
  for (Node& n : g.nodes) {
    // A Pad of zeros (exporters write one before some poolings) is the identity.
    bool zero_pad = false;
    if (n.op == "Pad" && n.inputs.size() >= 2 && g.IsConstant(n.inputs[1])) {
      const std::vector<int64_t>& pads = g.Find(n.inputs[1])->i64;
      zero_pad = std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
    }
    if ((n.op == "Identity" || n.op == "Dropout" || zero_pad) && !n.inputs.empty() &&
        !n.outputs.empty()) {
      // Dropout at inference is the identity (its mask output, if read, is not supported).
      if (g.IsConstant(n.inputs[0])) {
        Tensor t = *g.Find(n.inputs[0]);
        t.name = n.outputs[0];
        g.tensors[t.name] = std::move(t);
      } else {
        if (!g.IsOutput(n.outputs[0])) {
          g.ReplaceUses(n.outputs[0], n.inputs[0]);
          for (Node& k : kept) {
            for (std::string& in : k.inputs) {
              if (in == n.outputs[0]) in = n.inputs[0];
            }
          }
          continue;
        }
        kept.push_back(std::move(n));
      }
      continue;
    }
    if (n.op == "Shape" && n.inputs.size() == 1 && n.outputs.size() == 1) {
      const Tensor* in = g.Find(n.inputs[0]);
      Tensor* out = g.Find(n.outputs[0]);
      if (in != nullptr && out != nullptr) {
        std::vector<int64_t> shape = in->shape;
        const int64_t rank = static_cast<int64_t>(shape.size());
        int64_t start = NormalizeAxis(n.Int("start", 0), rank);
        int64_t end = NormalizeAxis(n.Int("end", rank), rank);
        start = std::clamp<int64_t>(start, 0, rank);
        end = std::clamp<int64_t>(end, start, rank);
        out->i64.assign(shape.begin() + start, shape.begin() + end);
        out->dtype = DType::kInt64;
        out->constant = true;
        continue;
      }
    }
    if (n.op == "Slice" && !n.inputs.empty() && n.outputs.size() == 1) {
      // A slice whose bounds onnx could not evaluate: its shape, now that they are constants.
      const Tensor* in = g.Find(n.inputs[0]);
      Tensor* out = g.Find(n.outputs[0]);
      if (in != nullptr && out != nullptr && in->shape_known && !out->shape_known) {
        absl::StatusOr<std::optional<SliceWindow>> w = SliceWindowOf(g, n, in->shape);
        if (!w.ok()) return w.status();
        if (w->has_value()) {
          out->shape = (*w)->extent;
          out->shape_known = true;
        }
      }
    }
    bool all_constant = !n.inputs.empty();
    for (const std::string& in : n.inputs) {
      if (!in.empty() && !g.IsConstant(in)) all_constant = false;
    }
    if (all_constant && n.outputs.size() == 1) {
      Tensor* out = g.Find(n.outputs[0]);
      if (out != nullptr) {
        absl::StatusOr<bool> folded = Evaluate(g, n, *out);
        if (!folded.ok()) return folded.status();
        if (*folded) continue;
      }
    }
    kept.push_back(std::move(n));
  }
  g.nodes = std::move(kept);
  g.RemoveDead();
  std::vector<std::string> unknown;
  for (const Node& n : g.nodes) {
    for (const std::string& o : n.outputs) {
      const Tensor* t = o.empty() ? nullptr : g.Find(o);
      if (t != nullptr && !t->shape_known) {
        unknown.push_back(absl::StrCat(n.name, " (", n.op, ")"));
        break;
      }
    }
  }
  if (!unknown.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the shapes of these nodes' outputs depend on values known only at run time: ",
        absl::StrJoin(unknown, ", "), " (bind dynamic input dimensions with --input_shape)"));
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::graph
