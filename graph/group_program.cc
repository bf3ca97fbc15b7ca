#include "graph/group_program.h"

#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "graph/dense_pairs.h"
#include "graph/slice_window.h"

namespace tunefarm::graph {
namespace {

// A float literal of the language: always with a '.' or an exponent.
std::string FloatLit(double v) {
  if (std::isinf(v)) v = v > 0 ? 3.4028234e38 : -3.4028234e38;
  std::string s = absl::StrFormat("%.9g", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// Where a logical axis of the output lives among the program's index variables.
struct AxisMap {
  // Index of the variable (-1: the axis is folded into another variable, as a dense layer's
  // leading axes into its rows).
  int var = -1;
  // A channel axis split into blocks: the in-block variable's index.
  int inner = -1;
};

// The output's index space: one variable per dimension in memory, with its extent's shape
// variable, and how the output's ONNX axes map onto them.
struct OutputSpace {
  std::vector<std::string> vars;
  std::vector<std::string> extents;
  // The extents' values.
  std::vector<int64_t> sizes;
  std::vector<AxisMap> logical;
};

class ProgramWriter {
 public:
  ProgramWriter(const Graph& g, const std::map<std::string, std::string>& read_as)
      : g_(g), read_as_(read_as) {}

  // Binds shape variable `name`; returns it.
  std::string Var(const std::string& name, int64_t value) {
    program_.shapes[name] = value;
    return name;
  }

  // Declares the activation `tensor` (read under its planned name) with `extents`.
  std::string Activation(const std::string& tensor, const std::vector<std::string>& extents,
                         const std::vector<int64_t>& shape, const std::string& preferred = "") {
    auto it = activations_.find(tensor);
    if (it != activations_.end()) return it->second;
    const std::string name = preferred.empty() ? absl::StrCat("R", activations_.size()) : preferred;
    decls_.push_back(absl::StrCat(name, " = input(float32, [", absl::StrJoin(extents, ", "), "])"));
    ProgramArg arg;
    arg.name = name;
    auto renamed = read_as_.find(tensor);
    arg.tensor = renamed == read_as_.end() ? tensor : renamed->second;
    arg.shape = shape;
    program_.args.push_back(std::move(arg));
    activations_[tensor] = name;
    return name;
  }

  std::string Weight(const std::string& name, const std::vector<std::string>& extents,
                     std::vector<int64_t> shape, std::vector<float> data) {
    decls_.push_back(
        absl::StrCat(name, " = weight(float32, [", absl::StrJoin(extents, ", "), "])"));
    ProgramArg arg;
    arg.name = name;
    arg.weight = true;
    arg.shape = std::move(shape);
    arg.data = std::move(data);
    program_.args.push_back(std::move(arg));
    return name;
  }

  void Stmt(std::string s) { stmts_.push_back(std::move(s)); }

  // The operand `tensor` of an elementwise operator, indexed at the output's element.
  absl::StatusOr<std::string> Operand(const std::string& tensor, const OutputSpace& space,
                                      const Tensor& out, const std::string& node) {
    const Tensor* t = g_.Find(tensor);
    if (t == nullptr) return absl::InternalError(absl::StrCat("no tensor ", tensor));
    if (!t->constant) {
      return absl::StrCat(Activation(tensor, space.extents, space.sizes), "[",
                          absl::StrJoin(space.vars, ", "), "]");
    }
    if (t->NumElements() == 1) return FloatLit(t->f32.empty() ? 0.0 : t->f32[0]);
    // A constant broadcast into the output: a weight over the axes it varies along.
    if (t->shape.size() > out.shape.size()) {
      return absl::UnimplementedError(
          absl::StrCat("node '", node, "': a constant of higher rank than its result"));
    }
    const size_t lead = out.shape.size() - t->shape.size();
    std::vector<std::string> extents, index;
    std::vector<int64_t> shape;
    for (size_t d = 0; d < t->shape.size(); ++d) {
      if (t->shape[d] == 1) continue;
      const AxisMap& a = space.logical[lead + d];
      if (a.var < 0) {
        return absl::UnimplementedError(
            absl::StrCat("node '", node,
                         "': a constant that varies along an axis the kernel folds into "
                         "another (",
                         ShapeString(t->shape), " into ", ShapeString(out.shape), ")"));
      }
      extents.push_back(space.extents[a.var]);
      index.push_back(space.vars[a.var]);
      shape.push_back(space.sizes[a.var]);
      if (a.inner >= 0) {
        extents.push_back(space.extents[a.inner]);
        index.push_back(space.vars[a.inner]);
        shape.push_back(space.sizes[a.inner]);
      }
    }
    const std::string name = Weight(absl::StrCat("K", weights_++), extents, shape, t->f32);
    return absl::StrCat(name, "[", absl::StrJoin(index, ", "), "]");
  }

  // `node` applied elementwise; `known` holds the expressions of the tensors computed earlier
  // in the kernel (the chain's values so far), the other inputs are operands.
  absl::StatusOr<std::string> Apply(const Node& node,
                                    const std::map<std::string, std::string>& known,
                                    const OutputSpace& space, const Tensor& out) {
    std::vector<std::string> x;
    for (const std::string& in : node.inputs) {
      if (in.empty()) {
        x.push_back("");
      } else if (auto k = known.find(in); k != known.end()) {
        x.push_back(k->second);
      } else {
        absl::StatusOr<std::string> e = Operand(in, space, out, node.name);
        if (!e.ok()) return e.status();
        x.push_back(*e);
      }
    }
    const std::string& op = node.op;
    if (op == "Add") return absl::StrCat("(", x[0], " + ", x[1], ")");
    if (op == "Sub") return absl::StrCat("(", x[0], " - ", x[1], ")");
    if (op == "Mul") return absl::StrCat("(", x[0], " * ", x[1], ")");
    if (op == "Div") return absl::StrCat("(", x[0], " / ", x[1], ")");
    if (op == "Max" || op == "Min") {
      std::string e = x[0];
      for (size_t k = 1; k < x.size(); ++k) {
        e = absl::StrCat(op == "Max" ? "max(" : "min(", e, ", ", x[k], ")");
      }
      return e;
    }
    if (op == "Pow") return absl::StrCat("pow(", x[0], ", ", x[1], ")");
    if (op == "Relu") return absl::StrCat("max(", x[0], ", 0.0)");
    if (op == "Clip") {
      std::string lo, hi;
      if (node.attrs.count("min")) lo = FloatLit(node.Float("min", 0));
      if (node.attrs.count("max")) hi = FloatLit(node.Float("max", 0));
      if (x.size() > 1 && !x[1].empty()) lo = x[1];
      if (x.size() > 2 && !x[2].empty()) hi = x[2];
      std::string e = x[0];
      if (!lo.empty()) e = absl::StrCat("max(", e, ", ", lo, ")");
      if (!hi.empty()) e = absl::StrCat("min(", e, ", ", hi, ")");
      return e;
    }
    if (op == "Sigmoid") return absl::StrCat("sigmoid(", x[0], ")");
    if (op == "Tanh") return absl::StrCat("tanh(", x[0], ")");
    if (op == "Erf") return absl::StrCat("erf(", x[0], ")");
    if (op == "Sqrt") return absl::StrCat("sqrt(", x[0], ")");
    if (op == "Exp") return absl::StrCat("exp(", x[0], ")");
    if (op == "Neg") return absl::StrCat("(0.0 - ", x[0], ")");
    if (op == "Identity") return x[0];
    if (op == "LeakyRelu") {
      return absl::StrCat("select(", x[0], " > 0.0, ", x[0], ", ",
                          FloatLit(node.Float("alpha", 0.01f)), " * ", x[0], ")");
    }
    if (op == "HardSigmoid") {
      return absl::StrCat("max(min(", FloatLit(node.Float("alpha", 0.2f)), " * ", x[0], " + ",
                          FloatLit(node.Float("beta", 0.5f)), ", 1.0), 0.0)");
    }
    if (op == "HardSwish") {
      return absl::StrCat("(", x[0], " * max(min(", x[0], " / 6.0 + 0.5, 1.0), 0.0))");
    }
    return absl::UnimplementedError(absl::StrCat("node '", node.name, "': ", op, " elementwise"));
  }

  GroupProgram Finish(std::string name, std::string output, std::vector<int64_t> output_shape) {
    program_.name = std::move(name);
    std::vector<std::string> lines = decls_;
    lines.insert(lines.end(), stmts_.begin(), stmts_.end());
    program_.text = absl::StrJoin(lines, "\n") + "\n";
    program_.output = std::move(output);
    program_.output_shape = std::move(output_shape);
    return std::move(program_);
  }

 private:
  const Graph& g_;
  const std::map<std::string, std::string>& read_as_;
  GroupProgram program_;
  std::vector<std::string> decls_, stmts_;
  std::map<std::string, std::string> activations_;
  int weights_ = 0;
};

// An operator that moves elements without computing: a transpose, a slice, a reshape.
bool IsMovementOp(const std::string& op) {
  return op == "Transpose" || op == "Slice" || IsReshapeOp(op);
}

// The fused chain after the anchor (group.nodes[1:]), applied to `value` (the anchor's
// result, standing for tensor `value_tensor`), written as the output stage `Z` over `space`.
// Returns the final expression.
absl::StatusOr<std::string> Chain(ProgramWriter& w, const Graph& g, const FusedGroup& group,
                                  size_t first, std::string value_tensor, std::string value,
                                  const OutputSpace& space) {
  const Tensor& out = *g.Find(group.output);
  std::map<std::string, std::string> known;
  if (!value_tensor.empty()) known[value_tensor] = value;
  for (size_t k = first; k < group.nodes.size(); ++k) {
    const Node& n = g.nodes[group.nodes[k]];
    if (IsMovementOp(n.op)) {
      // A view inside the chain (fusion takes only those): the same element, renamed.
      value = known[n.outputs[0]] = known[n.inputs[0]];
      continue;
    }
    absl::StatusOr<std::string> e = w.Apply(n, known, space, out);
    if (!e.ok()) return e.status();
    value = known[n.outputs[0]] = *e;
  }
  return value;
}

std::string Index(const std::vector<std::string>& vars) {
  return absl::StrCat("[", absl::StrJoin(vars, ", "), "]");
}

// The padded input of a window (convolution or pooling): `fill` outside the input.
std::string PaddingStmt(const std::string& fill) {
  return absl::StrCat(
      "P[n, c, h < H + Pt + Pb, w < W + Pl + Pr, cb] = select(h >= Pt && h < H + Pt && w >= Pl && "
      "w < W + Pl, X[n, c, h - Pt, w - Pl, cb], ",
      fill, ")");
}

// The output extents of a window (convolution or pooling) in terms of the shape variables.
constexpr char kHo[] = "(H + Pt + Pb - R) / Sh + 1";
constexpr char kWo[] = "(W + Pl + Pr - S) / Sw + 1";

// The anchor's value (its result `Y` read at the output's element, plus a bias) through the
// group's fused chain, written as the output stage `Z`; nothing when both are empty (`Y` is
// then the output).
absl::Status WriteEpilogue(ProgramWriter& w, const Graph& g, const FusedGroup& group,
                           const std::string& value, const OutputSpace& space) {
  const Node& anchor = g.nodes[group.nodes[0]];
  absl::StatusOr<std::string> e = Chain(w, g, group, 1, anchor.outputs[0], value, space);
  if (!e.ok()) return e.status();
  if (*e != absl::StrCat("Y", Index(space.vars))) {
    w.Stmt(absl::StrCat("Z", Index(space.vars), " = ", *e));
  }
  return absl::OkStatus();
}

// A blocked NCHW output space: n, <c>, y, x, <cb> over N, <C>, Ho, Wo, <CB>.
OutputSpace BlockedSpace(const std::string& c, const std::string& cb, const std::string& cext,
                         const std::string& cbext, const std::vector<int64_t>& sizes) {
  OutputSpace s;
  s.vars = {"n", c, "y", "x", cb};
  s.extents = {"N", cext, kHo, kWo, cbext};
  s.sizes = sizes;
  s.logical = {{0, -1}, {1, 4}, {2, -1}, {3, -1}};
  return s;
}

// Binds the window's shape variables: kernel, strides and pads, the bottom and right pads
// grown where a ceil-mode output's last window reaches past them (it reads the padding).
absl::Status BindWindow(ProgramWriter& w, const Node& n, int64_t H, int64_t W, int64_t R, int64_t S,
                        int64_t Ho, int64_t Wo) {
  const std::vector<int64_t> strides = n.Ints("strides", {1, 1});
  std::vector<int64_t> pads = n.Ints("pads", {0, 0, 0, 0});
  if (strides.size() != 2 || pads.size() != 4 || strides[0] < 1 || strides[1] < 1) {
    return absl::InvalidArgumentError(absl::StrCat(n.op, " '", n.name, "': strides or pads"));
  }
  pads[2] = std::max(pads[2], (Ho - 1) * strides[0] + R - H - pads[0]);
  pads[3] = std::max(pads[3], (Wo - 1) * strides[1] + S - W - pads[1]);
  if ((H + pads[0] + pads[2] - R) / strides[0] + 1 != Ho ||
      (W + pads[1] + pads[3] - S) / strides[1] + 1 != Wo) {
    return absl::InvalidArgumentError(
        absl::StrCat(n.op, " '", n.name,
                     "': its output shape does not "
                     "follow from its input, kernel, strides and pads"));
  }
  w.Var("H", H), w.Var("W", W), w.Var("R", R), w.Var("S", S), w.Var("Sh", strides[0]);
  w.Var("Sw", strides[1]), w.Var("Pt", pads[0]), w.Var("Pl", pads[1]), w.Var("Pb", pads[2]);
  w.Var("Pr", pads[3]);
  return absl::OkStatus();
}

// The bias of a convolution or dense layer (zeros when it has none).
std::vector<float> BiasOf(const Graph& g, const Node& n, size_t input, int64_t count) {
  if (n.inputs.size() <= input || n.inputs[input].empty()) return std::vector<float>(count, 0.0f);
  return g.Find(n.inputs[input])->f32;
}

absl::StatusOr<GroupProgram> ConvProgram(const Graph& g, const FusedGroup& group,
                                         const LayoutPlan& plan, ProgramWriter& w) {
  const Node& n = g.nodes[group.nodes[0]];
  const Tensor& x = *g.Find(n.inputs[0]);
  const Tensor& wt = *g.Find(n.inputs[1]);
  const Tensor& y = *g.Find(n.outputs[0]);
  const bool depthwise = group.kind == GroupKind::kDepthwise;
  const int64_t C = x.shape[1], F = y.shape[1], R = wt.shape[2], S = wt.shape[3];
  const int64_t cb = ChannelBlockFor(C), fb = ChannelBlockFor(F);
  if (wt.shape.size() != 4)
    return absl::InvalidArgumentError(absl::StrCat("Conv '", n.name, "': filter rank"));
  w.Var("N", x.shape[0]), w.Var("C", C / cb), w.Var("CB", cb);
  if (absl::Status s = BindWindow(w, n, x.shape[2], x.shape[3], R, S, y.shape[2], y.shape[3]);
      !s.ok()) {
    return s;
  }
  w.Activation(n.inputs[0], {"N", "C", "H", "W", "CB"},
               {x.shape[0], C / cb, x.shape[2], x.shape[3], cb}, "X");
  std::vector<float> packed(wt.f32.size());
  if (depthwise) {
    // [C][1][R][S] → [C/CB][R][S][CB].
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t r = 0; r < R * S; ++r)
        packed[((c / cb) * R * S + r) * cb + c % cb] = wt.f32[c * R * S + r];
    }
    w.Weight("Wt", {"C", "R", "S", "CB"}, {C / cb, R, S, cb}, std::move(packed));
  } else {
    // [F][C][R][S] → [F/FB][C/CB][R][S][CB][FB].
    w.Var("F", F / fb), w.Var("FB", fb);
    for (int64_t f = 0; f < F; ++f) {
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t r = 0; r < R * S; ++r) {
          packed[((((f / fb) * (C / cb) + c / cb) * R * S + r) * cb + c % cb) * fb + f % fb] =
              wt.f32[(f * C + c) * R * S + r];
        }
      }
    }
    w.Weight("Wt", {"F", "C", "R", "S", "CB", "FB"}, {F / fb, C / cb, R, S, cb, fb},
             std::move(packed));
  }
  const bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  if (has_bias) {
    w.Weight("B", {depthwise ? "C" : "F", depthwise ? "CB" : "FB"},
             {depthwise ? C / cb : F / fb, depthwise ? cb : fb}, BiasOf(g, n, 2, F));
  }
  w.Stmt(PaddingStmt("0.0"));
  const std::vector<int64_t> out_mem = {y.shape[0], F / fb, y.shape[2], y.shape[3], fb};
  OutputSpace space = depthwise ? BlockedSpace("c", "cb", "C", "CB", out_mem)
                                : BlockedSpace("f", "fb", "F", "FB", out_mem);
  if (depthwise) {
    w.Stmt(absl::StrCat("Y[n, c, y < ", kHo, ", x < ", kWo,
                        ", cb] = sum(ry < R, rx < S: P[n, c, y * Sh + ry, x * Sw + rx, cb] * "
                        "Wt[c, ry, rx, cb])"));
  } else {
    w.Stmt(absl::StrCat("Y[n, f, y < ", kHo, ", x < ", kWo,
                        ", fb] = sum(c, ry < R, rx < S, cb < CB: P[n, c, y * Sh + ry, x * Sw + "
                        "rx, cb] * Wt[f, c, ry, rx, cb, fb])"));
  }
  std::string value = absl::StrCat("Y", Index(space.vars));
  if (has_bias) value = absl::StrCat(value, " + B[", space.vars[1], ", ", space.vars[4], "]");
  if (absl::Status s = WriteEpilogue(w, g, group, value, space); !s.ok()) return s;
  const Tensor& out = *g.Find(group.output);
  return w.Finish(group.label, group.output, MemoryShape(out, plan.layouts.at(group.output)));
}

absl::StatusOr<GroupProgram> PoolProgram(const Graph& g, const FusedGroup& group,
                                         const LayoutPlan& plan, ProgramWriter& w) {
  const Node& n = g.nodes[group.nodes[0]];
  const Tensor& x = *g.Find(n.inputs[0]);
  const Tensor& y = *g.Find(n.outputs[0]);
  const int64_t C = x.shape[1], cb = ChannelBlockFor(C);
  w.Var("N", x.shape[0]), w.Var("C", C / cb), w.Var("CB", cb);
  w.Activation(n.inputs[0], {"N", "C", "H", "W", "CB"},
               {x.shape[0], C / cb, x.shape[2], x.shape[3], cb}, "X");
  if (group.kind == GroupKind::kGlobalAvgPool) {
    w.Var("H", x.shape[2]), w.Var("W", x.shape[3]);
    w.Stmt("S[n, c, cb] = sum(h, w: X[n, c, h, w, cb])");
    w.Stmt("Y[n, c, cb] = S[n, c, cb] / float32(H * W)");
    return w.Finish(group.label, group.output, {x.shape[0], C / cb, cb});
  }
  const std::vector<int64_t> k = n.Ints("kernel_shape");
  if (k.size() != 2)
    return absl::InvalidArgumentError(absl::StrCat(n.op, " '", n.name, "': kernel_shape"));
  if (absl::Status s = BindWindow(w, n, x.shape[2], x.shape[3], k[0], k[1], y.shape[2], y.shape[3]);
      !s.ok()) {
    return s;
  }
  const bool max = group.kind == GroupKind::kMaxPool;
  w.Stmt(PaddingStmt(max ? "-3.40282347e38" : "0.0"));
  if (max) {
    w.Stmt(absl::StrCat("Y[n, c, y < ", kHo, ", x < ", kWo,
                        ", cb] = max(ry < R, rx < S: P[n, c, y * Sh + ry, x * Sw + rx, cb])"));
  } else {
    w.Stmt(absl::StrCat("T[n, c, y < ", kHo, ", x < ", kWo,
                        ", cb] = sum(ry < R, rx < S: P[n, c, y * Sh + ry, x * Sw + rx, cb])"));
    w.Stmt("Y[n, c, y, x, cb] = T[n, c, y, x, cb] / float32(R * S)");
  }
  return w.Finish(group.label, group.output, MemoryShape(y, plan.layouts.at(group.output)));
}

// A result viewed as rows of its last axis: variables i (the leading axes folded into one) and
// j, over extents `rows` and `cols`. A constant broadcast along the folded axes is refused by
// the epilogue (Operand) unless the result is 2-D.
OutputSpace RowsSpace(const std::vector<int64_t>& shape, const std::string& rows,
                      const std::string& cols, int64_t m, int64_t n) {
  OutputSpace space;
  space.vars = {"i", "j"};
  space.extents = {rows, cols};
  space.sizes = {m, n};
  space.logical.assign(shape.size(), AxisMap{});
  space.logical.back() = {1, -1};
  if (shape.size() == 2) space.logical[0] = {0, -1};
  return space;
}

// The number of rows of `shape` seen as rows of its last axis.
int64_t Rows(const std::vector<int64_t>& shape) {
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) rows *= shape[d];
  return rows;
}

// A dense layer's operands: C = A·Wᵀ + bias over M rows (A's leading axes folded), N outputs
// and K inputs, the weight as Wt[N][K] with Gemm's transB and alpha applied.
struct DenseLayer {
  int64_t M = 0, N = 0, K = 0;
  std::vector<float> wt;
};

absl::StatusOr<DenseLayer> DenseLayerOf(const Graph& g, const Node& n) {
  const Tensor& a = *g.Find(n.inputs[0]);
  const Tensor& b = *g.Find(n.inputs[1]);
  if (b.shape.size() != 2 || a.shape.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(n.op, " '", n.name, "': operand ranks"));
  }
  const bool gemm = n.op == "Gemm";
  // Wt[N][K] = B (Gemm with transB) or Bᵀ, scaled by alpha.
  const bool trans = gemm && n.Int("transB", 0) != 0;
  DenseLayer d;
  d.K = trans ? b.shape[1] : b.shape[0];
  d.N = trans ? b.shape[0] : b.shape[1];
  if (a.shape.back() != d.K) {
    return absl::InvalidArgumentError(
        absl::StrCat(n.op, " '", n.name, "': inner dimensions differ"));
  }
  d.M = a.NumElements() / d.K;
  const float alpha = gemm ? n.Float("alpha", 1.0f) : 1.0f;
  d.wt.resize(d.N * d.K);
  for (int64_t j = 0; j < d.N; ++j) {
    for (int64_t k = 0; k < d.K; ++k)
      d.wt[j * d.K + k] = alpha * (trans ? b.f32[j * d.K + k] : b.f32[k * d.N + j]);
  }
  return d;
}

// Binds M, N and K, declares A, and (through `write_product`, which declares the weight and
// writes Y[i, j] = A·Wᵀ) the product; then Gemm's beta · C and the group's chain.
absl::StatusOr<GroupProgram> WriteDenseGroup(
    const Graph& g, const FusedGroup& group, const DenseLayer& d, const std::string& suffix,
    ProgramWriter& w, const std::function<void(ProgramWriter&)>& write_product) {
  const Node& n = g.nodes[group.nodes[0]];
  const Tensor& y = *g.Find(n.outputs[0]);
  w.Var("M", d.M), w.Var("N", d.N), w.Var("K", d.K);
  w.Activation(n.inputs[0], {"M", "K"}, {d.M, d.K}, "A");
  write_product(w);
  const OutputSpace space = RowsSpace(y.shape, "M", "N", d.M, d.N);
  std::string value = "Y[i, j]";
  if (n.op == "Gemm" && n.inputs.size() > 2 && !n.inputs[2].empty()) {
    // beta · C, broadcast into the result.
    Tensor c = *g.Find(n.inputs[2]);
    for (float& v : c.f32) v *= n.Float("beta", 1.0f);
    const int64_t rows = c.shape.size() == 2 ? c.shape[0] : 1;
    if (rows != 1) {
      return absl::UnimplementedError(absl::StrCat("Gemm '", n.name, "': a C that varies by row"));
    }
    if (c.NumElements() == 1) {
      value = absl::StrCat("(", value, " + ", FloatLit(c.f32[0]), ")");
    } else {
      w.Weight("B", {"N"}, {d.N}, c.f32);
      value = absl::StrCat("(", value, " + B[j])");
    }
  }
  if (absl::Status s = WriteEpilogue(w, g, group, value, space); !s.ok()) return s;
  return w.Finish(group.label + suffix, group.output, {d.M, d.N});
}

absl::StatusOr<GroupProgram> DenseProgram(const Graph& g, const FusedGroup& group,
                                          const LayoutPlan& plan, ProgramWriter& w) {
  absl::StatusOr<DenseLayer> d = DenseLayerOf(g, g.nodes[group.nodes[0]]);
  if (!d.ok()) return d.status();
  return WriteDenseGroup(g, group, *d, "", w, [&](ProgramWriter& w) {
    w.Weight("Wt", {"N", "K"}, {d->N, d->K}, d->wt);
    w.Stmt("Y[i, j] = sum(k: A[i, k] * Wt[j, k])");
  });
}

// A dense layer whose outputs and inputs fit the pairs rule (DensePairsFit) with its weight in
// pairs of consecutive inputs (examples/programs/dense_pairs.te): W[k][n / 8][n % 8][t] is
// Wt[n][2k + t], so one 8-byte broadcast of A[i, 2k], A[i, 2k + 1] serves a multiply-add per
// block of 8 outputs, every lane used. nullopt for any other group.
std::optional<GroupProgram> PairsDenseProgram(const Graph& g, const FusedGroup& group,
                                              ProgramWriter& w) {
  if (group.kind != GroupKind::kDense) return std::nullopt;
  absl::StatusOr<DenseLayer> d = DenseLayerOf(g, g.nodes[group.nodes[0]]);
  if (!d.ok() || !DensePairsFit(d->N, d->K)) return std::nullopt;
  std::vector<float> pairs = DensePairsWeight(d->wt, d->N, d->K);
  absl::StatusOr<GroupProgram> p =
      WriteDenseGroup(g, group, *d, "_pairs", w, [&](ProgramWriter& w) {
        w.Weight("Wt", {"K / 2", "N / 8", "8", "2"}, {d->K / 2, d->N / 8, 8, 2}, std::move(pairs));
        w.Stmt(
            "P[i, b < N / 8, l < 16] = sum(k < K / 2: A[i, 2 * k + l % 2] * Wt[k, b, l / 2, l % "
            "2])");
        w.Stmt("Y[i, j < N] = P[i, j / 8, 2 * (j % 8)] + P[i, j / 8, 2 * (j % 8) + 1]");
      });
  // The direct program (MakeGroupProgram) reports what refuses this group.
  if (!p.ok()) return std::nullopt;
  return *std::move(p);
}

// MatMul of two activations [.., M, K] · [.., K, N], the batch axes (equal in both) folded
// into one.
absl::StatusOr<GroupProgram> BatchMatmulProgram(const Graph& g, const FusedGroup& group,
                                                ProgramWriter& w) {
  const Node& n = g.nodes[group.nodes[0]];
  const Tensor& a = *g.Find(n.inputs[0]);
  const Tensor& b = *g.Find(n.inputs[1]);
  const Tensor& y = *g.Find(n.outputs[0]);
  const size_t r = a.shape.size();
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < r; ++d) batch *= a.shape[d];
  const int64_t M = a.shape[r - 2], K = a.shape[r - 1], N = b.shape[r - 1];
  if (b.shape[r - 2] != K) {
    return absl::InvalidArgumentError(
        absl::StrCat("MatMul '", n.name, "': inner dimensions differ"));
  }
  w.Var("Bt", batch), w.Var("M", M), w.Var("N", N), w.Var("K", K);
  const std::string lhs = w.Activation(n.inputs[0], {"Bt", "M", "K"}, {batch, M, K}, "A");
  const std::string rhs = w.Activation(n.inputs[1], {"Bt", "K", "N"}, {batch, K, N}, "Bm");
  w.Stmt(absl::StrCat("Y[b, i, j] = sum(k: ", lhs, "[b, i, k] * ", rhs, "[b, k, j])"));
  OutputSpace space;
  space.vars = {"b", "i", "j"};
  space.extents = {"Bt", "M", "N"};
  space.sizes = {batch, M, N};
  space.logical.assign(y.shape.size(), AxisMap{});
  space.logical[r - 1] = {2, -1};
  space.logical[r - 2] = {1, -1};
  if (r == 3) space.logical[0] = {0, -1};
  if (absl::Status s = WriteEpilogue(w, g, group, "Y[b, i, j]", space); !s.ok()) return s;
  return w.Finish(group.label, group.output, {batch, M, N});
}

// Declares the anchor's input as X[M, D], rows of its last axis; returns M and D.
std::pair<int64_t, int64_t> DeclareRows(ProgramWriter& w, const Graph& g, const Node& n) {
  const Tensor& x = *g.Find(n.inputs[0]);
  const int64_t M = Rows(x.shape), D = x.shape.back();
  w.Var("M", M), w.Var("D", D);
  w.Activation(n.inputs[0], {"M", "D"}, {M, D}, "X");
  return {M, D};
}

// Softmax over the last axis: max, exponentials, their sum, the quotients.
absl::StatusOr<GroupProgram> SoftmaxProgram(const Graph& g, const FusedGroup& group,
                                            ProgramWriter& w) {
  const Node& n = g.nodes[group.nodes[0]];
  const auto [M, D] = DeclareRows(w, g, n);
  w.Stmt("Mx[i] = max(j: X[i, j])");
  w.Stmt("E[i, j] = exp(X[i, j] - Mx[i])");
  w.Stmt("S[i] = sum(j: E[i, j])");
  w.Stmt("Y[i, j] = E[i, j] / S[i]");
  const OutputSpace space = RowsSpace(g.Find(n.inputs[0])->shape, "M", "D", M, D);
  if (absl::Status s = WriteEpilogue(w, g, group, "Y[i, j]", space); !s.ok()) return s;
  return w.Finish(group.label, group.output, {M, D});
}

// Layer normalization over the last axis, with its scale and bias (examples/programs/
// layer_norm.te).
absl::StatusOr<GroupProgram> LayerNormProgram(const Graph& g, const FusedGroup& group,
                                              ProgramWriter& w) {
  const Node& n = g.nodes[group.nodes[0]];
  const auto [M, D] = DeclareRows(w, g, n);
  auto row_constant = [&](size_t k, float fallback) {
    const Tensor* c = k < n.inputs.size() && !n.inputs[k].empty() ? g.Find(n.inputs[k]) : nullptr;
    return c != nullptr ? c->f32 : std::vector<float>(D, fallback);
  };
  w.Weight("G", {"D"}, {D}, row_constant(1, 1.0f));
  w.Weight("Bs", {"D"}, {D}, row_constant(2, 0.0f));
  w.Stmt("S[i] = sum(j: X[i, j])");
  w.Stmt("Mu[i] = S[i] / float32(D)");
  w.Stmt("Q[i] = sum(j: (X[i, j] - Mu[i]) * (X[i, j] - Mu[i]))");
  w.Stmt(absl::StrCat("Rs[i] = 1.0 / sqrt(Q[i] / float32(D) + ",
                      FloatLit(n.Float("epsilon", 1e-5f)), ")"));
  w.Stmt("Y[i, j] = (X[i, j] - Mu[i]) * Rs[i] * G[j] + Bs[j]");
  const OutputSpace space = RowsSpace(g.Find(n.inputs[0])->shape, "M", "D", M, D);
  if (absl::Status s = WriteEpilogue(w, g, group, "Y[i, j]", space); !s.ok()) return s;
  return w.Finish(group.label, group.output, {M, D});
}

// Index arithmetic as program text, folding the trivial cases.
std::string Times(const std::string& e, int64_t c) {
  return c == 1 ? e : absl::StrCat("(", e, " * ", c, ")");
}
std::string Plus(const std::string& e, int64_t c) {
  return c == 0 ? e : absl::StrCat("(", e, " + ", c, ")");
}

// The index of `in_shape` that a reshape to `out_shape` reads for the output element at `idx`:
// the axes (of length > 1) are matched in groups of equal products, so a split is a sum of
// products, a merge a quotient and a remainder, and a kept axis its own variable.
absl::StatusOr<std::vector<std::string>> ReshapeIndex(const std::vector<int64_t>& in_shape,
                                                      const std::vector<int64_t>& out_shape,
                                                      const std::vector<std::string>& idx) {
  std::vector<size_t> ia, ob;
  for (size_t d = 0; d < in_shape.size(); ++d) {
    if (in_shape[d] != 1) ia.push_back(d);
  }
  for (size_t d = 0; d < out_shape.size(); ++d) {
    if (out_shape[d] != 1) ob.push_back(d);
  }
  std::vector<std::string> in(in_shape.size(), "0");
  size_t i = 0, j = 0;
  while (i < ia.size() || j < ob.size()) {
    int64_t pa = 1, pb = 1;
    std::vector<size_t> gi, gj;
    do {
      if (i < ia.size() && (pa <= pb || j >= ob.size())) {
        pa *= in_shape[ia[i]];
        gi.push_back(ia[i++]);
      } else if (j < ob.size()) {
        pb *= out_shape[ob[j]];
        gj.push_back(ob[j++]);
      } else {
        return absl::InternalError("a reshape between different element counts");
      }
    } while (pa != pb);
    std::vector<std::string> terms;
    int64_t stride = 1;
    for (size_t k = gj.size(); k-- > 0;) {
      terms.insert(terms.begin(), Times(idx[gj[k]], stride));
      stride *= out_shape[gj[k]];
    }
    const std::string linear =
        terms.size() == 1 ? terms[0] : absl::StrCat("(", absl::StrJoin(terms, " + "), ")");
    stride = 1;
    for (size_t k = gi.size(); k-- > 0;) {
      std::string e = stride == 1 ? linear : absl::StrCat("(", linear, " / ", stride, ")");
      if (k > 0) e = absl::StrCat("(", e, " % ", in_shape[gi[k]], ")");
      in[gi[k]] = e;
      stride *= in_shape[gi[k]];
    }
  }
  return in;
}

// Transposes and slices of an activation, with the reshapes between them, as one kernel that
// reads the source once (TVM's injective fusion), then the group's elementwise chain.
absl::StatusOr<GroupProgram> InjectiveProgram(const Graph& g, const FusedGroup& group,
                                              ProgramWriter& w) {
  size_t moves = 0;
  while (moves < group.nodes.size() && IsMovementOp(g.nodes[group.nodes[moves]].op)) ++moves;
  const Node& last = g.nodes[group.nodes[moves - 1]];
  const Tensor& moved = *g.Find(last.outputs[0]);
  OutputSpace space;
  std::vector<std::string> idx;
  for (size_t d = 0; d < moved.shape.size(); ++d) {
    space.vars.push_back(absl::StrCat("i", d));
    space.extents.push_back(w.Var(absl::StrCat("E", d), moved.shape[d]));
    space.sizes.push_back(moved.shape[d]);
    space.logical.push_back({static_cast<int>(d), -1});
    idx.push_back(space.vars.back());
  }
  // Walk back from the last movement to the source, rewriting the index.
  for (size_t k = moves; k-- > 0;) {
    const Node& n = g.nodes[group.nodes[k]];
    const Tensor& in = *g.Find(n.inputs[0]);
    const Tensor& out = *g.Find(n.outputs[0]);
    if (n.op == "Transpose") {
      const std::vector<int64_t> perm = TransposePerm(n, in.shape.size());
      std::vector<std::string> back(in.shape.size());
      for (size_t d = 0; d < perm.size(); ++d) back[perm[d]] = idx[d];
      idx = std::move(back);
    } else if (n.op == "Slice") {
      absl::StatusOr<std::optional<SliceWindow>> sw = SliceWindowOf(g, n, in.shape);
      if (!sw.ok()) return sw.status();
      if (!sw->has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("Slice '", n.name, "': bounds"));
      }
      for (size_t d = 0; d < idx.size(); ++d) {
        idx[d] = Plus(Times(idx[d], (*sw)->step[d]), (*sw)->start[d]);
      }
    } else {
      absl::StatusOr<std::vector<std::string>> back = ReshapeIndex(in.shape, out.shape, idx);
      if (!back.ok()) return back.status();
      idx = *std::move(back);
    }
  }
  const Node& first = g.nodes[group.nodes[0]];
  const Tensor& source = *g.Find(first.inputs[0]);
  std::vector<std::string> extents;
  for (int64_t d : source.shape) extents.push_back(absl::StrCat(d));
  const std::string x = w.Activation(first.inputs[0], extents, source.shape, "X");
  std::vector<std::string> decl;
  for (size_t d = 0; d < space.vars.size(); ++d) {
    decl.push_back(absl::StrCat(space.vars[d], " < ", space.extents[d]));
  }
  w.Stmt(absl::StrCat("Y", Index(decl), " = ", x, Index(idx)));
  absl::StatusOr<std::string> e =
      Chain(w, g, group, moves, last.outputs[0], absl::StrCat("Y", Index(space.vars)), space);
  if (!e.ok()) return e.status();
  if (*e != absl::StrCat("Y", Index(space.vars))) {
    w.Stmt(absl::StrCat("Z", Index(space.vars), " = ", *e));
  }
  return w.Finish(group.label, group.output, moved.shape);
}

absl::StatusOr<GroupProgram> ElementwiseProgram(const Graph& g, const FusedGroup& group,
                                                const LayoutPlan& plan, ProgramWriter& w) {
  const Tensor& out = *g.Find(group.output);
  const Layout layout = plan.layouts.at(group.output);
  const std::vector<int64_t> mem = MemoryShape(out, layout);
  OutputSpace space;
  for (size_t d = 0; d < mem.size(); ++d) {
    space.vars.push_back(absl::StrCat("i", d));
    space.extents.push_back(w.Var(absl::StrCat("E", d), mem[d]));
    space.sizes.push_back(mem[d]);
  }
  if (layout.block > 0 && out.shape.size() == 4) {
    space.logical = {{0, -1}, {1, 4}, {2, -1}, {3, -1}};
  } else {
    for (size_t d = 0; d < mem.size(); ++d) space.logical.push_back({static_cast<int>(d), -1});
  }
  absl::StatusOr<std::string> e = Chain(w, g, group, 0, "", "", space);
  if (!e.ok()) return e.status();
  w.Stmt(absl::StrCat("Z", Index(space.vars), " = ", *e));
  return w.Finish(group.label, group.output, mem);
}

absl::StatusOr<GroupProgram> LayoutProgram(const Graph& g, const FusedGroup& group,
                                           const LayoutPlan& plan, ProgramWriter& w) {
  const Tensor& t = *g.Find(group.output);
  const Layout to = plan.layouts.at(group.output);
  const Layout from = plan.layouts.at(group.layout_source);
  if (t.shape.size() != 4) return absl::InternalError("a layout transform of a rank-4 tensor only");
  const int64_t block = to.block > 0 ? to.block : from.block;
  w.Var("N", t.shape[0]), w.Var("C", t.shape[1] / block), w.Var("CB", block);
  w.Var("H", t.shape[2]), w.Var("W", t.shape[3]);
  if (to.block > 0 && from.block == 0) {
    w.Activation(group.layout_source, {"N", "C * CB", "H", "W"}, t.shape, "X");
    w.Stmt("Y[n, c < C, h, w, cb < CB] = X[n, c * CB + cb, h, w]");
  } else if (to.block == 0 && from.block > 0) {
    w.Activation(group.layout_source, {"N", "C", "H", "W", "CB"},
                 {t.shape[0], t.shape[1] / block, t.shape[2], t.shape[3], block}, "X");
    w.Stmt("Y[n, c < C * CB, h, w] = X[n, c / CB, h, w, c % CB]");
  } else {
    return absl::UnimplementedError("a transform between two channel blocks");
  }
  return w.Finish(group.label, group.output, MemoryShape(t, to));
}

// Winograd F(4×4, 3×3) (examples/programs/conv2d_winograd.te): the transform matrices, the
// filter transform (hoisted ahead of the calls by the generated space), the input and output
// transforms and the 36 GEMMs over channel blocks of 16.
constexpr char kWinogradF4[] =
    R"(G = constant(float32, [[0.25, 0, 0], [-0.16666666666666666, -0.16666666666666666, -0.16666666666666666], [-0.16666666666666666, 0.16666666666666666, -0.16666666666666666], [0.041666666666666664, 0.08333333333333333, 0.16666666666666666], [0.041666666666666664, -0.08333333333333333, 0.16666666666666666], [0, 0, 1]])
Bt = constant(float32, [[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0], [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]])
At = constant(float32, [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]])
U[i < 6, j < 6, f, c, cb, fb] = sum(r < 3, s < 3: G[i, r] * Wt[f, c, r, s, cb, fb] * G[j, s])
P[n, c, h < (H + 3) / 4 * 4 + 2, w < (W + 3) / 4 * 4 + 2, cb] = select(h >= 1 && h <= H && w >= 1 && w <= W, X[n, c, h - 1, w - 1, cb], 0.0)
D[n, c, i < 6, th < (H + 3) / 4, w < (W + 3) / 4 * 4 + 2, cb] = sum(a < 6: Bt[i, a] * P[n, c, th * 4 + a, w, cb])
V[n, i < 6, j < 6, c, th < (H + 3) / 4, tw < (W + 3) / 4, cb] = sum(b < 6: D[n, c, i, th, tw * 4 + b, cb] * Bt[j, b])
M[n, i, j, f < F, th, tw, fb < 16] = sum(c, cb: V[n, i, j, c, th, tw, cb] * U[i, j, f, c, cb, fb])
E[n, f, y < 4, j, th, tw, fb] = sum(i: At[y, i] * M[n, i, j, f, th, tw, fb])
Y[n, f, h < H, w < W, fb] = sum(j: E[n, f, h % 4, j, h / 4, w / 4, fb] * At[w % 4, j]))";

// A 3×3, stride-1, padding-1 convolution over whole blocks of 16 channels by Winograd's
// algorithm, with the group's bias and fused chain; nullopt for any other group.
absl::StatusOr<std::optional<GroupProgram>> WinogradProgram(const Graph& g, const FusedGroup& group,
                                                            const LayoutPlan& plan,
                                                            ProgramWriter& w) {
  if (group.kind != GroupKind::kConv) return std::nullopt;
  const Node& n = g.nodes[group.nodes[0]];
  const Tensor& x = *g.Find(n.inputs[0]);
  const Tensor& wt = *g.Find(n.inputs[1]);
  const int64_t C = x.shape[1], F = wt.shape[0];
  if (wt.shape[2] != 3 || wt.shape[3] != 3 || C % 16 != 0 || F % 16 != 0 ||
      n.Ints("strides", {1, 1}) != std::vector<int64_t>{1, 1} ||
      n.Ints("pads", {0, 0, 0, 0}) != std::vector<int64_t>{1, 1, 1, 1}) {
    return std::nullopt;
  }
  w.Var("N", x.shape[0]), w.Var("C", C / 16), w.Var("H", x.shape[2]), w.Var("W", x.shape[3]);
  w.Var("F", F / 16);
  w.Activation(n.inputs[0], {"N", "C", "H", "W", "16"},
               {x.shape[0], C / 16, x.shape[2], x.shape[3], 16}, "X");
  std::vector<float> packed(wt.f32.size());
  for (int64_t f = 0; f < F; ++f) {
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t r = 0; r < 9; ++r) {
        packed[((((f / 16) * (C / 16) + c / 16) * 9 + r) * 16 + c % 16) * 16 + f % 16] =
            wt.f32[(f * C + c) * 9 + r];
      }
    }
  }
  w.Weight("Wt", {"F", "C", "3", "3", "16", "16"}, {F / 16, C / 16, 3, 3, 16, 16},
           std::move(packed));
  const bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  if (has_bias) w.Weight("B", {"F", "16"}, {F / 16, 16}, BiasOf(g, n, 2, F));
  w.Stmt(kWinogradF4);
  OutputSpace space;
  space.vars = {"n", "f", "y", "x", "fb"};
  space.extents = {"N", "F", "H", "W", "16"};
  space.sizes = {x.shape[0], F / 16, x.shape[2], x.shape[3], 16};
  space.logical = {{0, -1}, {1, 4}, {2, -1}, {3, -1}};
  std::string value = "Y[n, f, y, x, fb]";
  if (has_bias) value = absl::StrCat(value, " + B[f, fb]");
  if (absl::Status s = WriteEpilogue(w, g, group, value, space); !s.ok()) return s;
  const Tensor& out = *g.Find(group.output);
  return w.Finish(group.label + "_winograd", group.output,
                  MemoryShape(out, plan.layouts.at(group.output)));
}

// A 1×1, stride-1, unpadded convolution whose output channels fit the pairs rule
// (DensePairsFit: MobileNetV2's 96→24 projection), over input channel blocks of an even size: a
// GEMM of pixels × channels with its filter in pairs of input channels, [C/CB][CB/2][F/8][8][2]
// (dense_pairs.te's weight, the channel blocks one axis more of the reduction), so one 8-byte
// broadcast of two channels of a pixel serves a multiply-add per block of 8 output channels and
// 24 of them fill three vectors, where the direct program's last 8 fill half of one. The same
// bias and fused chain, the output in its planned blocks. nullopt for any other group.
std::optional<GroupProgram> PairsPointwiseProgram(const Graph& g, const FusedGroup& group,
                                                  const LayoutPlan& plan, ProgramWriter& w) {
  if (group.kind != GroupKind::kConv) return std::nullopt;
  const Node& n = g.nodes[group.nodes[0]];
  const Tensor& x = *g.Find(n.inputs[0]);
  const Tensor& wt = *g.Find(n.inputs[1]);
  const Tensor& y = *g.Find(n.outputs[0]);
  if (x.shape.size() != 4 || wt.shape.size() != 4 || y.shape.size() != 4) return std::nullopt;
  const int64_t C = x.shape[1], F = y.shape[1];
  const int64_t cb = ChannelBlockFor(C), fb = ChannelBlockFor(F);
  // (Fusion has refused dilated convolutions and filters that are not constants.)
  if (wt.shape[2] != 1 || wt.shape[3] != 1 || static_cast<int64_t>(wt.f32.size()) != F * C ||
      cb % 2 != 0 || !DensePairsFit(F, C) ||
      n.Ints("strides", {1, 1}) != std::vector<int64_t>{1, 1} ||
      n.Ints("pads", {0, 0, 0, 0}) != std::vector<int64_t>{0, 0, 0, 0} ||
      y.shape[2] != x.shape[2] || y.shape[3] != x.shape[3]) {
    return std::nullopt;
  }
  w.Var("N", x.shape[0]), w.Var("C", C / cb), w.Var("CB", cb), w.Var("H", x.shape[2]);
  w.Var("W", x.shape[3]), w.Var("F", F / fb), w.Var("FB", fb), w.Var("FT", F);
  w.Activation(n.inputs[0], {"N", "C", "H", "W", "CB"},
               {x.shape[0], C / cb, x.shape[2], x.shape[3], cb}, "X");
  // The filter [F][C][1][1] is the dense weight [F][C]; its pairs of inputs, counted across the
  // channel blocks, are the blocks' pairs in turn.
  w.Weight("Wt", {"C", "CB / 2", "FT / 8", "8", "2"}, {C / cb, cb / 2, F / 8, 8, 2},
           DensePairsWeight(wt.f32, F, C));
  const bool has_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
  if (has_bias) w.Weight("B", {"F", "FB"}, {F / fb, fb}, BiasOf(g, n, 2, F));
  w.Stmt(
      "P[n, y < H, x < W, b < FT / 8, l < 16] = sum(c < C, k < CB / 2: X[n, c, y, x, 2 * k + l % "
      "2] "
      "* Wt[c, k, b, l / 2, l % 2])");
  w.Stmt(
      "Y[n, f < F, y, x, fb < FB] = P[n, y, x, (f * FB + fb) / 8, 2 * ((f * FB + fb) % 8)] + "
      "P[n, y, x, (f * FB + fb) / 8, 2 * ((f * FB + fb) % 8) + 1]");
  OutputSpace space =
      BlockedSpace("f", "fb", "F", "FB", {y.shape[0], F / fb, y.shape[2], y.shape[3], fb});
  space.extents = {"N", "F", "H", "W", "FB"};  // the pixels are the input's
  std::string value = "Y[n, f, y, x, fb]";
  if (has_bias) value = absl::StrCat(value, " + B[f, fb]");
  if (WriteEpilogue(w, g, group, value, space).ok()) {
    const Tensor& out = *g.Find(group.output);
    return w.Finish(group.label + "_pairs", group.output,
                    MemoryShape(out, plan.layouts.at(group.output)));
  }
  // The direct program (MakeGroupProgram) reports what refuses this group.
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::vector<GroupProgram>> AlternativePrograms(const Graph& g,
                                                              const FusedGroup& group,
                                                              const LayoutPlan& plan,
                                                              size_t group_index) {
  std::vector<GroupProgram> out;
  ProgramWriter w(g, plan.read_as.at(group_index));
  absl::StatusOr<std::optional<GroupProgram>> winograd = WinogradProgram(g, group, plan, w);
  if (!winograd.ok()) return winograd.status();
  if (winograd->has_value()) out.push_back(**std::move(winograd));
  ProgramWriter pw(g, plan.read_as.at(group_index));
  if (std::optional<GroupProgram> pairs = PairsDenseProgram(g, group, pw)) {
    out.push_back(*std::move(pairs));
  }
  ProgramWriter cw(g, plan.read_as.at(group_index));
  if (std::optional<GroupProgram> pairs = PairsPointwiseProgram(g, group, plan, cw)) {
    out.push_back(*std::move(pairs));
  }
  return out;
}

absl::StatusOr<GroupProgram> MakeGroupProgram(const Graph& g, const FusedGroup& group,
                                              const LayoutPlan& plan, size_t group_index) {
  ProgramWriter w(g, plan.read_as.at(group_index));
  switch (group.kind) {
    case GroupKind::kConv:
    case GroupKind::kDepthwise:
      return ConvProgram(g, group, plan, w);
    case GroupKind::kMaxPool:
    case GroupKind::kAvgPool:
    case GroupKind::kGlobalAvgPool:
      return PoolProgram(g, group, plan, w);
    case GroupKind::kDense:
      return DenseProgram(g, group, plan, w);
    case GroupKind::kBatchMatmul:
      return BatchMatmulProgram(g, group, w);
    case GroupKind::kSoftmax:
      return SoftmaxProgram(g, group, w);
    case GroupKind::kLayerNorm:
      return LayerNormProgram(g, group, w);
    case GroupKind::kInjective:
      return InjectiveProgram(g, group, w);
    case GroupKind::kElementwise:
      return ElementwiseProgram(g, group, plan, w);
    case GroupKind::kLayout:
      return LayoutProgram(g, group, plan, w);
    case GroupKind::kView:
      return absl::InternalError("a view has no program");
  }
  return absl::InternalError("unknown group kind");
}

}  // namespace tunefarm::graph
