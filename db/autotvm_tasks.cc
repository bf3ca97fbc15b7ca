#include "db/autotvm_tasks.h"

#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "db/json.h"

namespace tunefarm::db {
namespace {

using google::protobuf::Value;

// How a task lays out its arguments (after the data and weight tensors).
enum class ArgsForm {
  kConvNchwc,       // strides, padding, dilation, layout, out_layout, out_dtype
  kConvNchw,        // strides, padding, dilation, out_dtype
  kDepthwiseNchwc,  // as kConvNchwc, weight [C, multiplier, R, S]
  kDepthwiseNchw,   // as kConvNchw, weight [C, multiplier, R, S]
  kDense,           // bias, out_dtype
  kBatchMatmul,     // out_shape, out_dtype, transpose_a, transpose_b
};

// Which knob translation a task has.
enum class KnobForm { kNone, kConvNchwc, kDensePack, kDenseNopack, kBatchMatmul };

struct TaskInfo {
  const char* task;
  const char* template_name;
  ArgsForm args;
  KnobForm knobs;
  bool cuda;
};

// The first row of a template (per CPU / cuda) is what its records export as.
constexpr TaskInfo kTasks[] = {
    {"conv2d_NCHWc.x86", "conv2d_nchwc", ArgsForm::kConvNchwc, KnobForm::kConvNchwc, false},
    {"conv2d_nchw.x86", "conv2d", ArgsForm::kConvNchw, KnobForm::kNone, false},
    {"conv2d_nchw.cuda", "conv2d", ArgsForm::kConvNchw, KnobForm::kNone, true},
    {"depthwise_conv2d_NCHWc.x86", "depthwise_conv2d", ArgsForm::kDepthwiseNchwc, KnobForm::kNone,
     false},
    {"depthwise_conv2d_nchw.x86", "depthwise_conv2d", ArgsForm::kDepthwiseNchw, KnobForm::kNone,
     false},
    {"depthwise_conv2d_nchw.cuda", "depthwise_conv2d", ArgsForm::kDepthwiseNchw, KnobForm::kNone,
     true},
    {"dense_pack.x86", "dense", ArgsForm::kDense, KnobForm::kDensePack, false},
    {"dense_nopack.x86", "dense", ArgsForm::kDense, KnobForm::kDenseNopack, false},
    {"dense.cuda", "dense", ArgsForm::kDense, KnobForm::kNone, true},
    {"dense_small_batch.gpu", "dense", ArgsForm::kDense, KnobForm::kNone, true},
    {"batch_matmul.x86", "batch_matmul", ArgsForm::kBatchMatmul, KnobForm::kBatchMatmul, false},
    {"batch_matmul.cuda", "batch_matmul", ArgsForm::kBatchMatmul, KnobForm::kNone, true},
};

// Largest shape argument a template accepts (template_util.h: CheckArgs).
constexpr int64_t kMaxArg = int64_t{1} << 24;

absl::StatusOr<const TaskInfo*> FindTask(absl::string_view task) {
  for (const TaskInfo& t : kTasks) {
    if (task == t.task) return &t;
  }
  return absl::NotFoundError(absl::StrCat("unknown AutoTVM task '", task, "'"));
}

bool IsConv(ArgsForm f) { return f == ArgsForm::kConvNchwc || f == ArgsForm::kConvNchw; }
bool IsDepthwise(ArgsForm f) {
  return f == ArgsForm::kDepthwiseNchwc || f == ArgsForm::kDepthwiseNchw;
}
bool HasLayouts(ArgsForm f) { return f == ArgsForm::kConvNchwc || f == ArgsForm::kDepthwiseNchwc; }

// ---- Reading TVM's arguments. Each reader returns why the value has no tunefarm equivalent.

absl::Status Raw(absl::string_view why) { return absl::FailedPreconditionError(why); }

// A JSON number that is an integer in [lo, kMaxArg].
bool ReadInt(const Value& v, int64_t lo, int64_t* out) {
  if (v.kind_case() != Value::kNumberValue) return false;
  double d = v.number_value();
  if (!std::isfinite(d) || d != std::trunc(d) || d < static_cast<double>(lo) ||
      d > static_cast<double>(kMaxArg)) {
    return false;
  }
  *out = static_cast<int64_t>(d);
  return true;
}

// ["TENSOR", [d0, ..., d{rank-1}], dtype] with positive dims.
struct Tensor {
  std::vector<int64_t> shape;
  std::string dtype;
};
absl::Status ReadTensor(const Value& v, const char* what, size_t rank, Tensor* t) {
  if (!v.has_list_value() || v.list_value().values_size() != 3 ||
      v.list_value().values(0).string_value() != "TENSOR" ||
      !v.list_value().values(1).has_list_value() ||
      v.list_value().values(2).kind_case() != Value::kStringValue) {
    return Raw(absl::StrCat(what, " is not [\"TENSOR\", shape, dtype]"));
  }
  const auto& dims = v.list_value().values(1).list_value().values();
  if (static_cast<size_t>(dims.size()) != rank) {
    return Raw(
        absl::StrCat(what, " has rank ", dims.size(), " (tunefarm's layout has ", rank, ")"));
  }
  t->shape.clear();
  for (const Value& d : dims) {
    int64_t x;
    if (!ReadInt(d, 1, &x)) return Raw(absl::StrCat(what, " has a dimension that is not 1..2^24"));
    t->shape.push_back(x);
  }
  t->dtype = v.list_value().values(2).string_value();
  return absl::OkStatus();
}

// An integer or a list of integers, all equal (strides [s, s], padding [p, p, p, p], ...).
absl::Status ReadUniform(const Value& v, const char* what, int64_t lo, int64_t* out) {
  if (ReadInt(v, lo, out)) return absl::OkStatus();
  if (!v.has_list_value() || v.list_value().values_size() == 0) {
    return Raw(absl::StrCat(what, " is not an integer or a list of integers"));
  }
  std::vector<int64_t> xs;
  for (const Value& e : v.list_value().values()) {
    int64_t x;
    if (!ReadInt(e, lo, &x)) return Raw(absl::StrCat(what, " has an entry below ", lo));
    xs.push_back(x);
  }
  for (int64_t x : xs) {
    if (x != xs[0]) {
      return Raw(absl::StrCat(what, " [", absl::StrJoin(xs, ","),
                              "] differs per side (tunefarm's convolutions take one value)"));
    }
  }
  *out = xs[0];
  return absl::OkStatus();
}

// The template dtype of input dtype `in` and TVM's out_dtype (null: same as the input):
// float32 -> float32; float16 inputs accumulated in float32 -> "float16" (tunefarm's float16).
absl::Status ReadDtype(const std::string& in, const Value& out_dtype, bool allow_half,
                       std::string* dtype) {
  std::string out = out_dtype.kind_case() == Value::kStringValue ? out_dtype.string_value()
                    : out_dtype.kind_case() == Value::kNullValue ? in
                                                                 : "?";
  if (in == "float32" && out == "float32") {
    *dtype = "float32";
    return absl::OkStatus();
  }
  if (allow_half && in == "float16" && out == "float32") {
    *dtype = "float16";
    return absl::OkStatus();
  }
  return Raw(absl::StrCat("dtype ", in, " -> ", out, " has no tunefarm template (",
                          allow_half ? "float32, or float16 into float32" : "float32 only", ")"));
}

// Canonical JSON of integer args followed by the dtype.
std::string ArgsJson(const std::vector<int64_t>& ints, const std::string& dtype) {
  std::vector<Value> items;
  for (int64_t x : ints) items.push_back(JsonNumber(static_cast<double>(x)));
  items.push_back(JsonString(dtype));
  return CanonicalJson(JsonList(std::move(items)));
}

// Convolutions (conv2d, conv2d_nchwc, depthwise_conv2d): validates as MakeConvShape does.
absl::Status ConvertConv(ArgsForm form, const std::string& template_name,
                         const google::protobuf::RepeatedPtrField<Value>& a, AutotvmWorkload* w) {
  const int expected = HasLayouts(form) ? 8 : 6;
  if (a.size() != expected) {
    return Raw(absl::StrCat("expected ", expected, " arguments, got ", a.size()));
  }
  Tensor data, weight;
  if (absl::Status s = ReadTensor(a[0], "data", 4, &data); !s.ok()) return s;
  if (absl::Status s = ReadTensor(a[1], "kernel", 4, &weight); !s.ok()) return s;
  if (weight.dtype != data.dtype) return Raw("data and kernel dtypes differ");
  int64_t stride, pad, dilation;
  if (absl::Status s = ReadUniform(a[2], "strides", 1, &stride); !s.ok()) return s;
  if (absl::Status s = ReadUniform(a[3], "padding", 0, &pad); !s.ok()) return s;
  if (absl::Status s = ReadUniform(a[4], "dilation", 1, &dilation); !s.ok()) return s;
  if (dilation != 1) {
    return Raw(absl::StrCat("dilation ", dilation, " (tunefarm's convolutions have dilation 1)"));
  }
  if (HasLayouts(form)) {
    for (int i : {5, 6}) {
      if (a[i].string_value() != "NCHW") {
        return Raw(absl::StrCat(i == 5 ? "layout" : "out_layout", " ", CanonicalJson(a[i]),
                                " (tunefarm's templates take NCHW)"));
      }
    }
  }
  const Value& out_dtype = a[HasLayouts(form) ? 7 : 5];
  const bool depthwise = IsDepthwise(form);
  std::string dtype;
  if (absl::Status s = ReadDtype(data.dtype, out_dtype, template_name != "conv2d_nchwc", &dtype);
      !s.ok()) {
    return s;
  }
  const int64_t n = data.shape[0], c = data.shape[1], h = data.shape[2], wd = data.shape[3];
  const int64_t r = weight.shape[2], s = weight.shape[3];
  int64_t k = weight.shape[0];
  if (depthwise) {
    if (weight.shape[0] != c || weight.shape[1] != 1) {
      return Raw(absl::StrCat("depthwise kernel [", absl::StrJoin(weight.shape, ","),
                              "]: tunefarm's depthwise_conv2d has channel multiplier 1"));
    }
    k = c;
  } else if (weight.shape[1] != c) {
    return Raw(absl::StrCat("kernel has ", weight.shape[1], " input channels, data ", c,
                            " (grouped convolutions have no tunefarm template)"));
  }
  if (pad >= r || pad >= s) {
    return Raw(absl::StrCat("padding ", pad, " is not smaller than the kernel ", r, "x", s,
                            " (the templates' rule)"));
  }
  if (h + 2 * pad < r || wd + 2 * pad < s) return Raw("kernel larger than the padded input");
  const int64_t oh = (h + 2 * pad - r) / stride + 1, ow = (wd + 2 * pad - s) / stride + 1;
  w->template_name = template_name;
  if (depthwise) {
    w->shape = {n, c, h, wd, r, s, stride, pad};
    w->flop = 2.0 * n * c * oh * ow * r * s;
  } else {
    w->shape = {n, c, h, wd, k, r, s, stride, pad};
    w->flop = 2.0 * n * k * oh * ow * c * r * s;
  }
  w->args = ArgsJson(w->shape, dtype);
  return absl::OkStatus();
}

absl::Status ConvertDense(const google::protobuf::RepeatedPtrField<Value>& a, AutotvmWorkload* w) {
  if (a.size() != 4) return Raw(absl::StrCat("expected 4 arguments, got ", a.size()));
  Tensor data, weight;
  if (absl::Status s = ReadTensor(a[0], "data", 2, &data); !s.ok()) return s;
  if (absl::Status s = ReadTensor(a[1], "weight", 2, &weight); !s.ok()) return s;
  if (weight.dtype != data.dtype) return Raw("data and weight dtypes differ");
  if (data.shape[1] != weight.shape[1]) return Raw("data and weight disagree on K");
  if (a[2].kind_case() != Value::kNullValue) {
    return Raw("a bias (tunefarm's dense has none; bias_relu is a separate template)");
  }
  std::string dtype;
  if (absl::Status s = ReadDtype(data.dtype, a[3], true, &dtype); !s.ok()) return s;
  const int64_t m = data.shape[0], k = data.shape[1], n = weight.shape[0];
  w->template_name = "dense";
  w->shape = {m, n, k};
  w->flop = 2.0 * m * n * k;
  w->args = ArgsJson(w->shape, dtype);
  return absl::OkStatus();
}

absl::Status ConvertBatchMatmul(const google::protobuf::RepeatedPtrField<Value>& a,
                                AutotvmWorkload* w) {
  if (a.size() < 2 || a.size() > 6) {
    return Raw(absl::StrCat("expected 2 to 6 arguments, got ", a.size()));
  }
  Tensor x, y;
  if (absl::Status s = ReadTensor(a[0], "tensor_a", 3, &x); !s.ok()) return s;
  if (absl::Status s = ReadTensor(a[1], "tensor_b", 3, &y); !s.ok()) return s;
  if (x.dtype != y.dtype) return Raw("tensor dtypes differ");
  // Transposes: tunefarm's batch_matmul is TVM's default NT form.
  if (a.size() > 4 && a[4].kind_case() == Value::kBoolValue && a[4].bool_value()) {
    return Raw("transpose_a = true (tunefarm's batch_matmul is A[B,M,K] x W[B,N,K])");
  }
  if (a.size() > 5 && a[5].kind_case() == Value::kBoolValue && !a[5].bool_value()) {
    return Raw("transpose_b = false (tunefarm's batch_matmul is A[B,M,K] x W[B,N,K])");
  }
  for (int i = 4; i < a.size(); ++i) {
    if (a[i].kind_case() != Value::kBoolValue) return Raw("transpose flags are not booleans");
  }
  const int64_t b = x.shape[0], m = x.shape[1], k = x.shape[2], n = y.shape[1];
  if (y.shape[0] != b) return Raw("batch sizes differ (broadcast batch has no template)");
  if (y.shape[2] != k) return Raw("tensors disagree on K");
  if (a.size() > 2 && a[2].kind_case() != Value::kNullValue) {
    const Value& os = a[2];
    if (!os.has_list_value() || os.list_value().values_size() != 3 ||
        os.list_value().values(0).number_value() != b ||
        os.list_value().values(1).number_value() != m ||
        os.list_value().values(2).number_value() != n) {
      return Raw("out_shape is not [B, M, N]");
    }
  }
  std::string dtype;
  if (absl::Status s = ReadDtype(x.dtype, a.size() > 3 ? a[3] : JsonNull(), true, &dtype);
      !s.ok()) {
    return s;
  }
  w->template_name = "batch_matmul";
  w->shape = {b, m, n, k};
  w->flop = 2.0 * b * m * n * k;
  w->args = ArgsJson(w->shape, dtype);
  return absl::OkStatus();
}

// ---- Knobs.

// Inner factors of TVM's split value [outer or -1, f1, ...] with `parts` entries.
absl::Status ReadSplit(const Value& knobs, const std::string& name, int parts,
                       std::vector<int64_t>* inner) {
  auto it = knobs.struct_value().fields().find(name);
  if (it == knobs.struct_value().fields().end()) {
    return absl::FailedPreconditionError(absl::StrCat("knob ", name, " missing"));
  }
  const Value& v = it->second;
  if (!v.has_list_value() || v.list_value().values_size() != parts) {
    return absl::FailedPreconditionError(
        absl::StrCat(name, " ", CanonicalJson(v), " is not a ", parts, "-way split"));
  }
  inner->clear();
  for (int i = 1; i < parts; ++i) {
    int64_t f;
    if (!ReadInt(v.list_value().values(i), 1, &f)) {
      return absl::FailedPreconditionError(
          absl::StrCat(name, " ", CanonicalJson(v), " has a factor that is not 1..2^24"));
    }
    inner->push_back(f);
  }
  return absl::OkStatus();
}

// TVM writes split values as [-1, inner...].
Value TvmSplit(const std::vector<int64_t>& inner) {
  std::vector<Value> items = {JsonNumber(-1)};
  for (int64_t f : inner) items.push_back(JsonNumber(static_cast<double>(f)));
  return JsonList(std::move(items));
}

Value Entry(const char* name, const char* type, Value value) {
  return JsonList({JsonString(name), JsonString(type), std::move(value)});
}

// Fails on a knob TVM's task does not define (a log of another TVM version's space).
absl::Status OnlyKnobs(const Value& knobs, const std::set<std::string>& allowed) {
  for (const auto& [name, value] : knobs.struct_value().fields()) {
    if (allowed.count(name) == 0) {
      return absl::FailedPreconditionError(absl::StrCat("unexpected knob ", name));
    }
  }
  return absl::OkStatus();
}

// The knob `name` of `knobs` (tunefarm's), or FailedPrecondition.
absl::StatusOr<Value> OurKnob(const Value& knobs, const char* name) {
  auto it = knobs.struct_value().fields().find(name);
  if (it == knobs.struct_value().fields().end()) {
    return absl::FailedPreconditionError(absl::StrCat("the config has no knob ", name));
  }
  return it->second;
}

// The inner factor of one of our 2-way split values [-1, f].
absl::StatusOr<int64_t> OurFactor(const Value& knobs, const char* name) {
  absl::StatusOr<Value> v = OurKnob(knobs, name);
  if (!v.ok()) return v.status();
  int64_t f;
  if (!v->has_list_value() || v->list_value().values_size() != 2 ||
      !ReadInt(v->list_value().values(1), 1, &f)) {
    return absl::FailedPreconditionError(absl::StrCat(name, " is not a 2-way split"));
  }
  return f;
}

Value Object(std::vector<std::pair<std::string, Value>> fields) {
  Value v = JsonObject();
  for (auto& [name, value] : fields) (*v.mutable_struct_value()->mutable_fields())[name] = value;
  return v;
}

Value OurSplit(int64_t f) { return JsonList({JsonNumber(-1), JsonNumber(static_cast<double>(f))}); }

// The GEMM templates' knobs (gemm_common.h) for a register tile ty x tx, reduction split tk and
// tile-loop order (0: N outer, as dense_pack; 1: M outer). TVM's GEMM schedules unroll the
// inner reduction and run the outer tiles in parallel.
Value GemmKnobs(int64_t ty, int64_t tx, int64_t tk, bool m_outer) {
  return Object({{"tile_y", OurSplit(ty)},
                 {"tile_x", OurSplit(tx)},
                 {"tile_k", OurSplit(tk)},
                 {"order", m_outer ? JsonList({JsonNumber(1), JsonNumber(0)})
                                   : JsonList({JsonNumber(0), JsonNumber(1)})},
                 {"unroll_k", JsonString("unroll")},
                 {"parallel", JsonNumber(1)}});
}

}  // namespace

absl::StatusOr<std::string> TemplateForAutotvmTask(absl::string_view task) {
  absl::StatusOr<const TaskInfo*> t = FindTask(task);
  if (!t.ok()) return t.status();
  return std::string((*t)->template_name);
}

absl::StatusOr<std::string> AutotvmTaskFor(absl::string_view template_name,
                                           absl::string_view target) {
  const bool cuda = absl::StartsWith(target, "cuda");
  for (const TaskInfo& t : kTasks) {
    if (template_name == t.template_name && t.cuda == cuda) return std::string(t.task);
  }
  return absl::NotFoundError(
      absl::StrCat("template '", template_name, "' has no AutoTVM task", cuda ? " for cuda" : ""));
}

absl::StatusOr<AutotvmWorkload> ConvertAutotvmArgs(absl::string_view task, const Value& args) {
  absl::StatusOr<const TaskInfo*> t = FindTask(task);
  if (!t.ok()) return t.status();
  const TaskInfo& info = **t;
  AutotvmWorkload w;
  w.template_name = info.template_name;
  absl::Status s = Raw("the arguments are not a list");
  if (args.has_list_value()) {
    const auto& a = args.list_value().values();
    if (IsConv(info.args) || IsDepthwise(info.args)) {
      s = ConvertConv(info.args, info.template_name, a, &w);
    } else if (info.args == ArgsForm::kDense) {
      s = ConvertDense(a, &w);
    } else {
      s = ConvertBatchMatmul(a, &w);
    }
  }
  if (s.ok()) {
    w.converted = true;
    return w;
  }
  w.converted = false;
  w.args = CanonicalJson(args);
  w.flop = 0;
  w.shape.clear();
  w.why_raw = std::string(s.message());
  return w;
}

bool IsAutotvmProvenanceKey(absl::string_view key) {
  return key == kAutotvmTaskKey || key == kAutotvmIndexKey || key == kAutotvmEntityKey ||
         key == kAutotvmUntranslatedKey || key == kAutotvmLegacyTaskKey;
}

bool IsAutotvmKnobType(absl::string_view type) {
  return type == "sp" || type == "re" || type == "an" || type == "ot";
}

absl::Status ParseTemplateArgs(absl::string_view args_json, std::vector<int64_t>* ints,
                               std::string* dtype) {
  absl::StatusOr<Value> v = ParseJson(args_json);
  auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat("args ", args_json, " are not integers followed by a dtype"));
  };
  if (!v.ok() || !v->has_list_value() || v->list_value().values_size() < 2) return bad();
  const auto& items = v->list_value().values();
  ints->clear();
  for (int i = 0; i + 1 < items.size(); ++i) {
    int64_t x;
    if (!ReadInt(items[i], 0, &x)) return bad();
    ints->push_back(x);
  }
  if (items[items.size() - 1].kind_case() != Value::kStringValue) return bad();
  *dtype = items[items.size() - 1].string_value();
  return absl::OkStatus();
}

absl::StatusOr<Value> AutotvmArgsFor(absl::string_view task, absl::string_view args_json) {
  absl::StatusOr<const TaskInfo*> t = FindTask(task);
  if (!t.ok()) return t.status();
  const ArgsForm form = (*t)->args;
  std::vector<int64_t> a;
  std::string dtype;
  if (absl::Status s = ParseTemplateArgs(args_json, &a, &dtype); !s.ok()) return s;
  const size_t arity = IsConv(form) ? 9 : IsDepthwise(form) ? 8 : form == ArgsForm::kDense ? 3 : 4;
  if (a.size() != arity) {
    return absl::InvalidArgumentError(
        absl::StrCat("args ", args_json, " are not ", (*t)->template_name, "'s"));
  }
  // tunefarm's float16 reads half inputs and accumulates into float32.
  const std::string out_dtype = "float32";
  auto tensor = [&](std::vector<int64_t> shape) {
    std::vector<Value> dims;
    for (int64_t d : shape) dims.push_back(JsonNumber(static_cast<double>(d)));
    return JsonList({JsonString("TENSOR"), JsonList(std::move(dims)), JsonString(dtype)});
  };
  auto pair = [](int64_t x) {
    return JsonList({JsonNumber(static_cast<double>(x)), JsonNumber(static_cast<double>(x))});
  };
  auto quad = [](int64_t x) {
    std::vector<Value> items(4, JsonNumber(static_cast<double>(x)));
    return JsonList(std::move(items));
  };
  std::vector<Value> out;
  if (IsConv(form) || IsDepthwise(form)) {
    const bool dw = IsDepthwise(form);
    const int64_t n = a[0], c = a[1], h = a[2], w = a[3];
    const int64_t k = dw ? c : a[4], r = a[dw ? 4 : 5], s = a[dw ? 5 : 6];
    const int64_t stride = a[dw ? 6 : 7], pad = a[dw ? 7 : 8];
    out = {tensor({n, c, h, w}), tensor({k, dw ? 1 : c, r, s}), pair(stride), quad(pad), pair(1)};
    if (HasLayouts(form)) {
      out.push_back(JsonString("NCHW"));
      out.push_back(JsonString("NCHW"));
    }
    out.push_back(JsonString(out_dtype));
  } else if (form == ArgsForm::kDense) {
    out = {tensor({a[0], a[2]}), tensor({a[1], a[2]}), JsonNull(), JsonString(out_dtype)};
  } else {
    out = {tensor({a[0], a[1], a[3]}),
           tensor({a[0], a[2], a[3]}),
           JsonNull(),
           JsonString(out_dtype),
           JsonBool(false),
           JsonBool(true)};
  }
  return JsonList(std::move(out));
}

absl::StatusOr<AutotvmTranslation> TranslateAutotvmConfig(absl::string_view task,
                                                          const AutotvmWorkload& w,
                                                          const Value& tvm_knobs) {
  absl::StatusOr<const TaskInfo*> t = FindTask(task);
  if (!t.ok()) return absl::FailedPreconditionError(t.status().message());
  if (!w.converted) return absl::FailedPreconditionError("the args were not converted");
  if (!tvm_knobs.has_struct_value()) return absl::FailedPreconditionError("knobs not an object");
  AutotvmTranslation out;
  std::vector<int64_t> y, x, k, inner;
  switch ((*t)->knobs) {
    case KnobForm::kNone:
      return absl::FailedPreconditionError(absl::StrCat(
          task, "'s knobs have no counterpart in tunefarm's ", w.template_name, " template"));
    case KnobForm::kConvNchwc: {
      // TVM: channel blocks tile_ic / tile_oc, output row block tile_ow; a 1x1 kernel has
      // tile_oh (rows per block) instead of unroll_kw. tunefarm's conv2d_nchwc blocks the same
      // way, one output row per block, the kernel window's kw loop unrolled by unroll_kernel.
      const auto& fields = tvm_knobs.struct_value().fields();
      const bool one_by_one = fields.count("tile_oh") > 0;
      if (absl::Status s = OnlyKnobs(
              tvm_knobs, {"tile_ic", "tile_oc", "tile_ow", one_by_one ? "tile_oh" : "unroll_kw"});
          !s.ok()) {
        return s;
      }
      std::vector<int64_t> ic, oc, ow;
      for (auto [name, f] : {std::pair<const char*, std::vector<int64_t>*>{"tile_ic", &ic},
                             {"tile_oc", &oc},
                             {"tile_ow", &ow}}) {
        if (absl::Status s = ReadSplit(tvm_knobs, name, 2, f); !s.ok()) return s;
      }
      std::string unroll = "none";
      if (one_by_one) {
        const Value& oh = fields.at("tile_oh");
        if (oh.kind_case() != Value::kNumberValue || oh.number_value() != 1) {
          return absl::FailedPreconditionError(absl::StrCat(
              "tile_oh ", CanonicalJson(oh), ": conv2d_nchwc blocks one output row at a time"));
        }
      } else {
        auto it = fields.find("unroll_kw");
        if (it == fields.end() || it->second.kind_case() != Value::kBoolValue) {
          return absl::FailedPreconditionError("unroll_kw missing or not a boolean");
        }
        unroll = it->second.bool_value() ? "unroll" : "none";
      }
      out.knobs = Object({{"tile_ic", OurSplit(ic[0])},
                          {"tile_oc", OurSplit(oc[0])},
                          {"tile_ow", OurSplit(ow[0])},
                          {"tile_ocb", OurSplit(1)},
                          {"unroll_kernel", JsonString(unroll)},
                          {"parallel", JsonNumber(1)}});
      return out;
    }
    case KnobForm::kDensePack: {
      // TVM: 3-way splits of M and N (outer, middle, register tile), the reduction split and
      // tile_inner (a second split of the register tile's rows). The template has the register
      // tile ty x tx, packed by tx, and the reduction split; the middle level and tile_inner
      // are dropped (approximate unless they are 1).
      if (absl::Status s = OnlyKnobs(tvm_knobs, {"tile_y", "tile_x", "tile_k", "tile_inner"});
          !s.ok()) {
        return s;
      }
      if (absl::Status s = ReadSplit(tvm_knobs, "tile_y", 3, &y); !s.ok()) return s;
      if (absl::Status s = ReadSplit(tvm_knobs, "tile_x", 3, &x); !s.ok()) return s;
      if (absl::Status s = ReadSplit(tvm_knobs, "tile_k", 2, &k); !s.ok()) return s;
      if (tvm_knobs.struct_value().fields().count("tile_inner") > 0) {
        if (absl::Status s = ReadSplit(tvm_knobs, "tile_inner", 2, &inner); !s.ok()) return s;
      } else {
        inner = {1};
      }
      out.knobs = GemmKnobs(y[1], x[1], k[0], /*m_outer=*/false);
      out.approximate = y[0] != 1 || x[0] != 1 || inner[0] != 1;
      return out;
    }
    case KnobForm::kDenseNopack:
    case KnobForm::kBatchMatmul: {
      // TVM: 2-way splits of M, N and K, the M tiles outermost.
      if (absl::Status s = OnlyKnobs(tvm_knobs, {"tile_y", "tile_x", "tile_k"}); !s.ok()) return s;
      if (absl::Status s = ReadSplit(tvm_knobs, "tile_y", 2, &y); !s.ok()) return s;
      if (absl::Status s = ReadSplit(tvm_knobs, "tile_x", 2, &x); !s.ok()) return s;
      if (absl::Status s = ReadSplit(tvm_knobs, "tile_k", 2, &k); !s.ok()) return s;
      out.knobs = GemmKnobs(y[0], x[0], k[0], /*m_outer=*/true);
      return out;
    }
  }
  return absl::FailedPreconditionError("no translation");
}

absl::StatusOr<Value> AutotvmEntityFor(absl::string_view task, absl::string_view args_json,
                                       const Value& knobs) {
  absl::StatusOr<const TaskInfo*> t = FindTask(task);
  if (!t.ok()) return absl::FailedPreconditionError(t.status().message());
  if (!knobs.has_struct_value()) return absl::FailedPreconditionError("knobs not an object");
  std::vector<int64_t> a;
  std::string dtype;
  if (absl::Status s = ParseTemplateArgs(args_json, &a, &dtype); !s.ok()) return s;
  auto factors =
      [&](std::initializer_list<const char*> names) -> absl::StatusOr<std::vector<int64_t>> {
    std::vector<int64_t> fs;
    for (const char* name : names) {
      absl::StatusOr<int64_t> f = OurFactor(knobs, name);
      if (!f.ok()) return f.status();
      fs.push_back(*f);
    }
    return fs;
  };
  switch ((*t)->knobs) {
    case KnobForm::kNone:
      return absl::FailedPreconditionError(absl::StrCat(task, " has no knob translation"));
    case KnobForm::kConvNchwc: {
      if (a.size() != 9) return absl::InvalidArgumentError("not conv2d_nchwc's args");
      absl::StatusOr<std::vector<int64_t>> f = factors({"tile_ic", "tile_oc", "tile_ow"});
      if (!f.ok()) return f.status();
      absl::StatusOr<Value> unroll = OurKnob(knobs, "unroll_kernel");
      if (!unroll.ok()) return unroll.status();
      std::vector<Value> entity = {Entry("tile_ic", "sp", TvmSplit({(*f)[0]})),
                                   Entry("tile_oc", "sp", TvmSplit({(*f)[1]})),
                                   Entry("tile_ow", "sp", TvmSplit({(*f)[2]}))};
      if (a[5] == 1 && a[6] == 1) {
        entity.push_back(Entry("tile_oh", "ot", JsonNumber(1)));
      } else {
        entity.push_back(Entry("unroll_kw", "ot", JsonBool(unroll->string_value() == "unroll")));
      }
      return JsonList(std::move(entity));
    }
    case KnobForm::kDensePack: {
      absl::StatusOr<std::vector<int64_t>> f = factors({"tile_y", "tile_x", "tile_k"});
      if (!f.ok()) return f.status();
      return JsonList({Entry("tile_y", "sp", TvmSplit({1, (*f)[0]})),
                       Entry("tile_x", "sp", TvmSplit({1, (*f)[1]})),
                       Entry("tile_k", "sp", TvmSplit({(*f)[2]})),
                       Entry("tile_inner", "sp", TvmSplit({1}))});
    }
    case KnobForm::kDenseNopack:
    case KnobForm::kBatchMatmul: {
      absl::StatusOr<std::vector<int64_t>> f = factors({"tile_y", "tile_x", "tile_k"});
      if (!f.ok()) return f.status();
      return JsonList({Entry("tile_y", "sp", TvmSplit({(*f)[0]})),
                       Entry("tile_x", "sp", TvmSplit({(*f)[1]})),
                       Entry("tile_k", "sp", TvmSplit({(*f)[2]}))});
    }
  }
  return absl::FailedPreconditionError("no translation");
}

}  // namespace tunefarm::db
