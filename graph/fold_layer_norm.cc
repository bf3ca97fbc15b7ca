#include "graph/fold_layer_norm.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"

namespace tunefarm::graph {
namespace {

// The one node that reads `t` (and `t` is not a model output); nullptr otherwise.
const Node* OnlyConsumer(const Graph& g, const std::string& t) {
  const std::vector<int> c = g.Consumers(t);
  if (c.size() != 1 || g.IsOutput(t)) return nullptr;
  return &g.nodes[c[0]];
}

// The scalar value of constant `t`; nullopt when it is not a one-element float constant.
std::optional<float> Scalar(const Graph& g, const std::string& t) {
  const Tensor* c = g.Find(t);
  if (c == nullptr || !c->constant || c->NumElements() != 1 || c->f32.size() != 1) {
    return std::nullopt;
  }
  return c->f32[0];
}

// A ReduceMean over the last axis of a tensor of rank `rank`, keeping it.
bool IsMeanOverLastAxis(const Node& n, size_t rank) {
  if (n.op != "ReduceMean" || n.inputs.size() != 1 || n.Int("keepdims", 1) != 1) return false;
  const std::vector<int64_t> axes = n.Ints("axes");
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == static_cast<int64_t>(rank) - 1);
}

// The other operand of binary `n`, the one that is not `t`.
std::string Other(const Node& n, const std::string& t) {
  return n.inputs[0] == t ? n.inputs[1] : n.inputs[0];
}

// A constant of one value per element of the last axis (of length `d`), as [d].
bool IsRowConstant(const Graph& g, const std::string& t, int64_t d) {
  const Tensor* c = g.Find(t);
  if (c == nullptr || !c->constant || c->dtype != DType::kFloat32) return false;
  return c->NumElements() == d && (c->shape.empty() ? d == 1 : c->shape.back() == d);
}

}  // namespace

absl::Status FoldLayerNorm(Graph& g) {
  std::set<int> dead;
  std::vector<std::pair<int, Node>> added;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& mean = g.nodes[i];
    if (mean.op != "ReduceMean" || dead.count(i)) continue;
    const std::string x = mean.inputs[0];
    const Tensor* xt = g.Find(x);
    if (xt == nullptr || xt->shape.empty() || !IsMeanOverLastAxis(mean, xt->shape.size())) {
      continue;
    }
    const int64_t d = xt->shape.back();
    const Node* sub = OnlyConsumer(g, mean.outputs[0]);
    if (sub == nullptr || sub->op != "Sub" ||
        sub->inputs != std::vector<std::string>{x, mean.outputs[0]}) {
      continue;
    }
    const std::string diff = sub->outputs[0];
    const std::vector<int> readers = g.Consumers(diff);
    if (readers.size() != 2 || g.IsOutput(diff)) continue;
    const Node* pow = nullptr;
    const Node* div = nullptr;
    for (int r : readers) {
      const Node& n = g.nodes[r];
      if (n.op == "Pow" && n.inputs.size() == 2 && n.inputs[0] == diff &&
          Scalar(g, n.inputs[1]) == 2.0f) {
        pow = &n;
      } else if (n.op == "Mul" && n.inputs.size() == 2 && n.inputs[0] == diff &&
                 n.inputs[1] == diff) {
        pow = &n;
      } else if (n.op == "Div" && n.inputs.size() == 2 && n.inputs[0] == diff) {
        div = &n;
      }
    }
    if (pow == nullptr || div == nullptr) continue;
    const Node* var = OnlyConsumer(g, pow->outputs[0]);
    if (var == nullptr || !IsMeanOverLastAxis(*var, xt->shape.size())) continue;
    const Node* add_eps = OnlyConsumer(g, var->outputs[0]);
    if (add_eps == nullptr || add_eps->op != "Add") continue;
    const std::optional<float> eps = Scalar(g, Other(*add_eps, var->outputs[0]));
    if (!eps.has_value()) continue;
    const Node* sqrt = OnlyConsumer(g, add_eps->outputs[0]);
    if (sqrt == nullptr || sqrt->op != "Sqrt") continue;
    if (OnlyConsumer(g, sqrt->outputs[0]) != div || div->inputs[1] != sqrt->outputs[0]) continue;
    std::vector<const Node*> matched = {&mean, sub, pow, var, add_eps, sqrt, div};
    std::string y = div->outputs[0];
    std::string gamma, beta;
    if (const Node* mul = OnlyConsumer(g, y);
        mul != nullptr && mul->op == "Mul" && IsRowConstant(g, Other(*mul, y), d)) {
      gamma = Other(*mul, y);
      matched.push_back(mul);
      y = mul->outputs[0];
      if (const Node* add = OnlyConsumer(g, y);
          add != nullptr && add->op == "Add" && IsRowConstant(g, Other(*add, y), d)) {
        beta = Other(*add, y);
        matched.push_back(add);
        y = add->outputs[0];
      }
    }
    Node ln;
    ln.op = "LayerNormalization";
    ln.name = mean.name + "/layer_norm";
    auto constant = [&](const std::string& name, float v) {
      Tensor t;
      t.name = absl::StrCat(ln.name, "/", name);
      t.shape = {d};
      t.constant = true;
      t.f32.assign(d, v);
      g.tensors[t.name] = t;
      return t.name;
    };
    ln.inputs = {x, gamma.empty() ? constant("scale", 1.0f) : gamma,
                 beta.empty() ? constant("bias", 0.0f) : beta};
    ln.outputs = {y};
    ln.attrs["axis"].i = -1;
    ln.attrs["epsilon"].kind = Attribute::Kind::kFloat;
    ln.attrs["epsilon"].f = *eps;
    int last = static_cast<int>(i);
    for (const Node* n : matched) {
      const int k = static_cast<int>(n - g.nodes.data());
      dead.insert(k);
      last = std::max(last, k);
    }
    added.emplace_back(last, std::move(ln));
  }
  if (added.empty()) return absl::OkStatus();
  // The new node goes where its last matched node was: after everything it reads, before
  // everything that reads its output.
  std::vector<Node> nodes;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (auto& [at, n] : added) {
      if (at == static_cast<int>(i)) nodes.push_back(std::move(n));
    }
    if (!dead.count(static_cast<int>(i))) nodes.push_back(std::move(g.nodes[i]));
  }
  g.nodes = std::move(nodes);
  g.RemoveDead();
  return absl::OkStatus();
}

}  // namespace tunefarm::graph
