#include "graph/group_program.h"

#include <cmath>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

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

  // `node` applied elementwise, `value` (the chain's value so far, may be empty) standing for
  // the input named `value_tensor`.
  absl::StatusOr<std::string> Apply(const Node& node, const std::string& value_tensor,
                                    const std::string& value, const OutputSpace& space,
                                    const Tensor& out) {
    std::vector<std::string> x;
    for (const std::string& in : node.inputs) {
      if (in.empty()) {
        x.push_back("");
      } else if (!value_tensor.empty() && in == value_tensor) {
        x.push_back(value);
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

// The fused chain after the anchor (group.nodes[1:]), applied to `value` (the anchor's
// result, standing for tensor `value_tensor`), written as the output stage `Z` over `space`.
// Returns the final expression.
absl::StatusOr<std::string> Chain(ProgramWriter& w, const Graph& g, const FusedGroup& group,
                                  size_t first, std::string value_tensor, std::string value,
                                  const OutputSpace& space) {
  const Tensor& out = *g.Find(group.output);
  for (size_t k = first; k < group.nodes.size(); ++k) {
    const Node& n = g.nodes[group.nodes[k]];
    absl::StatusOr<std::string> e = w.Apply(n, value_tensor, value, space, out);
    if (!e.ok()) return e.status();
    value = *e;
    value_tensor = n.outputs[0];
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

absl::StatusOr<GroupProgram> DenseProgram(const Graph& g, const FusedGroup& group,
                                          const LayoutPlan& plan, ProgramWriter& w) {
  const Node& n = g.nodes[group.nodes[0]];
  const Tensor& a = *g.Find(n.inputs[0]);
  const Tensor& b = *g.Find(n.inputs[1]);
  const Tensor& y = *g.Find(n.outputs[0]);
  if (b.shape.size() != 2 || a.shape.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(n.op, " '", n.name, "': operand ranks"));
  }
  const bool gemm = n.op == "Gemm";
  // Wt[N][K] = B (Gemm with transB) or Bᵀ, scaled by alpha.
  const bool trans = gemm && n.Int("transB", 0) != 0;
  const int64_t K = trans ? b.shape[1] : b.shape[0], N = trans ? b.shape[0] : b.shape[1];
  if (a.shape.back() != K) {
    return absl::InvalidArgumentError(
        absl::StrCat(n.op, " '", n.name, "': inner dimensions differ"));
  }
  const int64_t M = a.NumElements() / K;
  const float alpha = gemm ? n.Float("alpha", 1.0f) : 1.0f;
  std::vector<float> wt(N * K);
  for (int64_t j = 0; j < N; ++j) {
    for (int64_t k = 0; k < K; ++k)
      wt[j * K + k] = alpha * (trans ? b.f32[j * K + k] : b.f32[k * N + j]);
  }
  w.Var("M", M), w.Var("N", N), w.Var("K", K);
  w.Activation(n.inputs[0], {"M", "K"}, {M, K}, "A");
  w.Weight("Wt", {"N", "K"}, {N, K}, std::move(wt));
  w.Stmt("Y[i, j] = sum(k: A[i, k] * Wt[j, k])");
  OutputSpace space;
  space.vars = {"i", "j"};
  space.extents = {"M", "N"};
  space.sizes = {M, N};
  space.logical.assign(y.shape.size(), AxisMap{});
  space.logical.back() = {1, -1};
  if (y.shape.size() == 2) space.logical[0] = {0, -1};
  std::string value = "Y[i, j]";
  if (gemm && n.inputs.size() > 2 && !n.inputs[2].empty()) {
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
      w.Weight("B", {"N"}, {N}, c.f32);
      value = absl::StrCat("(", value, " + B[j])");
    }
  }
  if (absl::Status s = WriteEpilogue(w, g, group, value, space); !s.ok()) return s;
  return w.Finish(group.label, group.output, {M, N});
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
