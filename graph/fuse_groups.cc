#include "graph/fuse_groups.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/slice_window.h"

namespace tunefarm::graph {
namespace {

const std::set<std::string>& ElementwiseOps() {
  static const auto* ops = new std::set<std::string>{
      "Add",  "Sub",      "Mul",       "Div",         "Max",      "Min",  "Pow",
      "Relu", "Clip",     "Sigmoid",   "Tanh",        "Erf",      "Sqrt", "Exp",
      "Neg",  "Identity", "LeakyRelu", "HardSigmoid", "HardSwish"};
  return *ops;
}

// A Transpose's permutation (the default reverses the axes); empty when it is not one of the
// input's axes.
std::vector<int64_t> Permutation(const Graph& g, const Node& n) {
  const Tensor* x = g.Find(n.inputs[0]);
  if (x == nullptr) return {};
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  const std::vector<int64_t> perm = TransposePerm(n, x->shape.size());
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t d = 0; d < static_cast<int64_t>(sorted.size()); ++d) {
    if (sorted[d] != d) return {};
  }
  return static_cast<int64_t>(perm.size()) == rank ? perm : std::vector<int64_t>{};
}

// The same bytes before and after: a reshape, or a transpose that moves only axes of length 1.
bool IsView(const Graph& g, const Node& n) {
  if (IsReshapeOp(n.op)) return true;
  if (n.op != "Transpose") return false;
  const std::vector<int64_t> perm = Permutation(g, n);
  if (perm.empty()) return false;
  const Tensor& x = *g.Find(n.inputs[0]);
  int64_t last = -1;
  for (int64_t p : perm) {
    if (x.shape[p] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

// A data movement that fusion makes part of an injective kernel.
bool IsMovement(const Graph& g, const Node& n) {
  return (n.op == "Transpose" || n.op == "Slice") && !IsView(g, n);
}

// A Softmax or LayerNormalization whose axis is its input's last.
bool OverLastAxis(const Graph& g, const Node& n) {
  const Tensor* x = g.Find(n.inputs[0]);
  const int64_t axis = n.Int("axis", -1);
  return x != nullptr && !x->shape.empty() &&
         (axis == -1 || axis == static_cast<int64_t>(x->shape.size()) - 1);
}

// Why the node cannot be compiled as written; empty when it can.
std::string Unsupported(const Graph& g, const Node& n) {
  if (n.op == "Conv") {
    const Tensor* x = g.Find(n.inputs[0]);
    const Tensor* w = n.inputs.size() > 1 ? g.Find(n.inputs[1]) : nullptr;
    if (x == nullptr || x->shape.size() != 4) return "only 2-D convolutions (NCHW)";
    if (w == nullptr || !w->constant) return "the filter must be a constant";
    if (w->shape.size() != 4 || w->shape[1] * n.Int("group", 1) != x->shape[1]) {
      return "a filter that is not [F, C/group, R, S]";
    }
    for (int64_t d : n.Ints("dilations", {1, 1})) {
      if (d != 1) return "dilated convolutions";
    }
    const int64_t groups = n.Int("group", 1);
    if (groups != 1 && !(groups == x->shape[1] && w->shape[0] == groups)) {
      return "grouped convolutions other than depthwise (group = channels = filters)";
    }
    if (n.String("auto_pad", "NOTSET") != "NOTSET") return "auto_pad (give explicit pads)";
    if (n.inputs.size() > 2 && !n.inputs[2].empty() && !g.IsConstant(n.inputs[2])) {
      return "a bias that is not a constant";
    }
    return "";
  }
  if (n.op == "Gemm") {
    if (n.Int("transA", 0) != 0) return "transA = 1";
    if (!g.IsConstant(n.inputs[1])) return "a B operand that is not a constant";
    if (n.inputs.size() > 2 && !n.inputs[2].empty() && !g.IsConstant(n.inputs[2])) {
      return "a C operand that is not a constant";
    }
    return "";
  }
  if (n.op == "MatMul") {
    const Tensor* a = g.Find(n.inputs[0]);
    const Tensor* b = g.Find(n.inputs[1]);
    if (a == nullptr || b == nullptr || a->constant) return "a constant left operand";
    if (b->constant) return b->shape.size() == 2 ? "" : "a constant right operand not 2-D";
    if (a->shape.size() < 2 || a->shape.size() != b->shape.size() ||
        !std::equal(a->shape.begin(), a->shape.end() - 2, b->shape.begin())) {
      return "MatMul of two activations with broadcast batch axes (only equal ones, rank >= 2)";
    }
    return "";
  }
  if (n.op == "Softmax") return OverLastAxis(g, n) ? "" : "a softmax over other than the last axis";
  if (n.op == "LayerNormalization") {
    if (!OverLastAxis(g, n)) return "a layer norm over other than the last axis";
    const Tensor* x = g.Find(n.inputs[0]);
    for (size_t k = 1; k < n.inputs.size(); ++k) {
      const Tensor* c = n.inputs[k].empty() ? nullptr : g.Find(n.inputs[k]);
      if (c != nullptr && (!c->constant || c->NumElements() != x->shape.back())) {
        return "a scale or bias that is not a constant over the last axis";
      }
    }
    for (size_t k = 1; k < n.outputs.size(); ++k) {
      if (!n.outputs[k].empty() && !g.Consumers(n.outputs[k]).empty()) {
        return "its mean or inverse deviation outputs";
      }
    }
    return "";
  }
  if (n.op == "Transpose") {
    return Permutation(g, n).empty() ? "a perm that is not a permutation of the axes" : "";
  }
  if (n.op == "Slice") {
    const Tensor* x = g.Find(n.inputs[0]);
    const Tensor* y = g.Find(n.outputs[0]);
    absl::StatusOr<std::optional<SliceWindow>> w =
        x == nullptr ? std::optional<SliceWindow>() : SliceWindowOf(g, n, x->shape);
    if (!w.ok() || !w->has_value() || y == nullptr || (*w)->extent != y->shape) {
      return "bounds that are not constants consistent with its shapes";
    }
    return "";
  }
  if (n.op == "MaxPool" || n.op == "AveragePool") {
    const Tensor* x = g.Find(n.inputs[0]);
    if (x == nullptr || x->shape.size() != 4) return "only 2-D pooling (NCHW)";
    if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "MaxPool's indices output";
    for (int64_t d : n.Ints("dilations", {1, 1})) {
      if (d != 1) return "dilated pooling";
    }
    if (n.String("auto_pad", "NOTSET") != "NOTSET") return "auto_pad (give explicit pads)";
    if (n.op == "AveragePool" && n.Int("count_include_pad", 0) == 0) {
      for (int64_t p : n.Ints("pads")) {
        if (p != 0) return "padding left out of the average (count_include_pad = 0)";
      }
    }
    return "";
  }
  if (n.op == "GlobalAveragePool") {
    const Tensor* x = g.Find(n.inputs[0]);
    return x != nullptr && x->shape.size() == 4 ? "" : "only 2-D pooling (NCHW)";
  }
  if (IsReshapeOp(n.op)) return "";
  if (ElementwiseOps().count(n.op)) {
    if (n.op == "Clip" &&
        ((n.inputs.size() > 1 && !n.inputs[1].empty() && !g.IsConstant(n.inputs[1])) ||
         (n.inputs.size() > 2 && !n.inputs[2].empty() && !g.IsConstant(n.inputs[2])))) {
      return "Clip bounds that are not constants";
    }
    const Tensor* out = g.Find(n.outputs[0]);
    for (const std::string& in : n.inputs) {
      const Tensor* t = in.empty() ? nullptr : g.Find(in);
      if (t != nullptr && t->dtype != DType::kFloat32) return "integer tensors";
      if (t != nullptr && !t->constant && out != nullptr && t->shape != out->shape) {
        return "broadcasting an activation (only constants are broadcast, for now)";
      }
    }
    return "";
  }
  if (n.op == "ReduceMean") return "outside a layer norm's decomposition";
  return "the operator";
}

GroupKind AnchorKind(const Graph& g, const Node& n) {
  if (n.op == "Conv") return n.Int("group", 1) == 1 ? GroupKind::kConv : GroupKind::kDepthwise;
  if (n.op == "MatMul" && !g.IsConstant(n.inputs[1])) return GroupKind::kBatchMatmul;
  if (n.op == "Gemm" || n.op == "MatMul") return GroupKind::kDense;
  if (n.op == "Softmax") return GroupKind::kSoftmax;
  if (n.op == "LayerNormalization") return GroupKind::kLayerNorm;
  if (IsView(g, n)) return GroupKind::kView;
  if (IsMovement(g, n)) return GroupKind::kInjective;
  if (n.op == "MaxPool") return GroupKind::kMaxPool;
  if (n.op == "AveragePool") return GroupKind::kAvgPool;
  if (n.op == "GlobalAveragePool") return GroupKind::kGlobalAvgPool;
  return GroupKind::kElementwise;
}

// An elementwise link that keeps the value's shape (a constant may broadcast into it); after a
// view, only scalar constants (a constant's broadcast would follow the view's axes, not the
// kernel's).
bool IsLink(const Graph& g, const Node& n, const std::vector<int64_t>& shape, bool after_view) {
  if (!ElementwiseOps().count(n.op)) return false;
  const Tensor* out = g.Find(n.outputs[0]);
  if (out == nullptr || out->shape != shape) return false;
  for (const std::string& in : n.inputs) {
    const Tensor* t = in.empty() ? nullptr : g.Find(in);
    if (after_view && t != nullptr && t->constant && t->NumElements() != 1) return false;
  }
  return true;
}

// The nodes that continue a chain from `value`: the elementwise link that alone reads it; or,
// with `views`, views of it and then such a link (a residual add after a reshape); or, where
// several links read it (GELU's x · Φ(x)), a run of links from the first that has taken every
// reader by its end, each intermediate read by the next alone. Empty: the chain ends here.
std::vector<int> NextLinks(const Graph& g, const std::string& value, const std::vector<bool>& taken,
                           bool views, bool& after_view) {
  constexpr int kMaxRun = 8;
  if (g.IsOutput(value)) return {};
  const std::vector<int> readers = g.Consumers(value);
  if (readers.empty()) return {};
  for (int r : readers) {
    if (taken[r]) return {};
  }
  const std::vector<int64_t>& shape = g.Find(value)->shape;
  if (readers.size() == 1 && IsView(g, g.nodes[readers[0]])) {
    if (!views) return {};
    std::vector<int> run = {readers[0]};
    std::string v = g.nodes[readers[0]].outputs[0];
    for (int k = 0; k < kMaxRun && !g.IsOutput(v); ++k) {
      const std::vector<int> next = g.Consumers(v);
      if (next.size() != 1 || taken[next[0]]) return {};
      const Node& n = g.nodes[next[0]];
      run.push_back(next[0]);
      if (IsView(g, n)) {
        v = n.outputs[0];
        continue;
      }
      if (!IsLink(g, n, g.Find(v)->shape, true)) return {};
      after_view = true;
      return run;
    }
    return {};
  }
  std::vector<int> run;
  int cur = readers[0];
  for (int k = 0; k < kMaxRun; ++k) {
    const Node& n = g.nodes[cur];
    if (taken[cur] || !IsLink(g, n, shape, after_view)) return {};
    run.push_back(cur);
    if (std::all_of(readers.begin(), readers.end(),
                    [&](int r) { return std::find(run.begin(), run.end(), r) != run.end(); })) {
      return run;
    }
    if (g.IsOutput(n.outputs[0])) return {};
    const std::vector<int> next = g.Consumers(n.outputs[0]);
    if (next.size() != 1) return {};
    cur = next[0];
  }
  return {};
}

}  // namespace

bool IsReshapeOp(const std::string& op) {
  return op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze";
}

const char* GroupKindName(GroupKind k) {
  switch (k) {
    case GroupKind::kConv:
      return "conv";
    case GroupKind::kDepthwise:
      return "depthwise";
    case GroupKind::kDense:
      return "dense";
    case GroupKind::kMaxPool:
      return "max_pool";
    case GroupKind::kAvgPool:
      return "avg_pool";
    case GroupKind::kGlobalAvgPool:
      return "global_avg_pool";
    case GroupKind::kBatchMatmul:
      return "batch_matmul";
    case GroupKind::kSoftmax:
      return "softmax";
    case GroupKind::kLayerNorm:
      return "layer_norm";
    case GroupKind::kInjective:
      return "injective";
    case GroupKind::kElementwise:
      return "elementwise";
    case GroupKind::kView:
      return "view";
    case GroupKind::kLayout:
      return "layout";
  }
  return "?";
}

const std::vector<std::string>& SupportedOperators() {
  static const auto* ops = [] {
    auto* v = new std::vector<std::string>{"Conv",
                                           "Gemm",
                                           "MatMul",
                                           "MaxPool",
                                           "AveragePool",
                                           "GlobalAveragePool",
                                           "Flatten",
                                           "Reshape",
                                           "Squeeze",
                                           "Unsqueeze",
                                           "Transpose",
                                           "Slice",
                                           "Softmax",
                                           "LayerNormalization",
                                           "BatchNormalization",
                                           "Dropout"};
    for (const std::string& op : ElementwiseOps()) v->push_back(op);
    return v;
  }();
  return *ops;
}

absl::StatusOr<std::vector<FusedGroup>> FuseGroups(const Graph& g) {
  std::map<std::string, std::vector<std::string>> unsupported;
  for (const Node& n : g.nodes) {
    const std::string why = Unsupported(g, n);
    if (!why.empty())
      unsupported[absl::StrCat(n.op, ": ", why)].push_back(absl::StrCat("'", n.name, "'"));
  }
  if (!unsupported.empty()) {
    std::vector<std::string> lines;
    for (const auto& [what, nodes] : unsupported) {
      std::vector<std::string> shown(nodes.begin(),
                                     nodes.begin() + std::min<size_t>(nodes.size(), 6));
      lines.push_back(absl::StrCat(
          what, " (node", nodes.size() > 1 ? "s " : " ", absl::StrJoin(shown, ", "),
          nodes.size() > 6 ? absl::StrCat(" and ", nodes.size() - 6, " more") : "", ")"));
    }
    return absl::UnimplementedError(absl::StrCat(
        "the model uses what tunefarm cannot compile yet: ", absl::StrJoin(lines, "; ")));
  }
  std::vector<bool> taken(g.nodes.size(), false);
  std::vector<std::pair<int, FusedGroup>> by_last;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (taken[i]) continue;
    FusedGroup group;
    group.kind = AnchorKind(g, g.nodes[i]);
    group.nodes.push_back(static_cast<int>(i));
    taken[i] = true;
    std::vector<std::string> ops = {g.nodes[i].op};
    std::string value = g.nodes[i].outputs[0];
    const bool absorbs = group.kind != GroupKind::kView && group.kind != GroupKind::kMaxPool &&
                         group.kind != GroupKind::kAvgPool &&
                         group.kind != GroupKind::kGlobalAvgPool;
    // An injective group's data movements come first, then its elementwise chain.
    bool moving = group.kind == GroupKind::kInjective;
    // Views inside the chain: only where the anchor's result is row-major (a view of a blocked
    // tensor is other bytes).
    const bool views = group.kind == GroupKind::kDense || group.kind == GroupKind::kBatchMatmul ||
                       group.kind == GroupKind::kSoftmax || group.kind == GroupKind::kLayerNorm ||
                       group.kind == GroupKind::kInjective;
    bool after_view = false;
    while (absorbs) {
      std::vector<int> links;
      if (moving) {
        const std::vector<int> consumers = g.Consumers(value);
        if (!g.IsOutput(value) && consumers.size() == 1 && !taken[consumers[0]] &&
            (IsView(g, g.nodes[consumers[0]]) || IsMovement(g, g.nodes[consumers[0]]))) {
          links = consumers;
        } else {
          moving = false;
        }
      }
      if (!moving) links = NextLinks(g, value, taken, views, after_view);
      if (links.empty()) break;
      for (int l : links) {
        group.nodes.push_back(l);
        taken[l] = true;
        ops.push_back(g.nodes[l].op);
      }
      value = g.nodes[links.back()].outputs[0];
    }
    group.output = value;
    for (std::string& op : ops) op = absl::AsciiStrToLower(op);
    group.label = absl::StrJoin(ops, "_");
    by_last.emplace_back(group.nodes.back(), std::move(group));
  }
  std::stable_sort(by_last.begin(), by_last.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<FusedGroup> groups;
  for (auto& [last, group] : by_last) groups.push_back(std::move(group));
  return groups;
}

}  // namespace tunefarm::graph
