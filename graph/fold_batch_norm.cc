#include "graph/fold_batch_norm.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace tunefarm::graph {
namespace {

// The node that writes `tensor`; -1 for none.
int Producer(const Graph& g, const std::string& tensor) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& out : g.nodes[i].outputs) {
      if (out == tensor) return static_cast<int>(i);
    }
  }
  return -1;
}

Tensor Constant(const std::string& name, std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.constant = true;
  t.f32 = std::move(values);
  return t;
}

}  // namespace

absl::Status FoldBatchNorm(Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node bn = g.nodes[i];
    if (bn.op != "BatchNormalization") continue;
    const std::string where = absl::StrCat("BatchNormalization '", bn.name, "'");
    if (bn.inputs.size() != 5 || bn.outputs.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": needs 5 inputs"));
    }
    const Tensor* x = g.Find(bn.inputs[0]);
    if (x == nullptr || x->shape.size() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": input of rank < 2"));
    }
    const int64_t channels = x->shape[1];
    std::vector<const Tensor*> p;
    for (int k = 1; k < 5; ++k) {
      const Tensor* t = g.Find(bn.inputs[k]);
      if (t == nullptr || !t->constant || t->dtype != DType::kFloat32 ||
          static_cast<int64_t>(t->f32.size()) != channels) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": scale, bias, mean and variance must be constants of ", channels, " values"));
      }
      p.push_back(t);
    }
    const float eps = bn.Float("epsilon", 1e-5f);
    std::vector<float> scale(channels), shift(channels);
    for (int64_t c = 0; c < channels; ++c) {
      scale[c] = p[0]->f32[c] / std::sqrt(p[3]->f32[c] + eps);
      shift[c] = p[1]->f32[c] - p[2]->f32[c] * scale[c];
    }
    const int conv = Producer(g, bn.inputs[0]);
    const bool output = g.IsOutput(bn.inputs[0]);
    if (conv >= 0 && g.nodes[conv].op == "Conv" && g.Consumers(bn.inputs[0]).size() == 1 &&
        !output && g.IsConstant(g.nodes[conv].inputs[1]) &&
        (g.nodes[conv].inputs.size() < 3 || g.nodes[conv].inputs[2].empty() ||
         g.IsConstant(g.nodes[conv].inputs[2]))) {
      Node& c = g.nodes[conv];
      Tensor w = *g.Find(c.inputs[1]);
      if (w.shape.empty() || w.shape[0] != channels) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": channels differ from its Conv's"));
      }
      const int64_t per = w.NumElements() / channels;
      for (int64_t f = 0; f < channels; ++f) {
        for (int64_t k = 0; k < per; ++k) w.f32[f * per + k] *= scale[f];
      }
      std::vector<float> bias(channels, 0.0f);
      if (c.inputs.size() >= 3 && !c.inputs[2].empty()) bias = g.Find(c.inputs[2])->f32;
      for (int64_t f = 0; f < channels; ++f) bias[f] = bias[f] * scale[f] + shift[f];
      w.name = c.name + ".weight_bn";
      g.tensors[w.name] = w;
      c.inputs[1] = w.name;
      const std::string bias_name = c.name + ".bias_bn";
      g.tensors[bias_name] = Constant(bias_name, {channels}, bias);
      c.inputs.resize(3);
      c.inputs[2] = bias_name;
      // The convolution now writes the normalized tensor.
      g.tensors[bn.outputs[0]].shape = x->shape;
      g.ReplaceUses(bn.outputs[0], bn.inputs[0]);
      g.nodes.erase(g.nodes.begin() + i);
      --i;
      continue;
    }
    // A per-channel Mul and Add, broadcast over [C, 1, ...].
    std::vector<int64_t> shape(x->shape.size() - 1, 1);
    shape[0] = channels;
    const std::string s_name = bn.name + ".scale", b_name = bn.name + ".shift";
    const std::string mid = bn.name + ".scaled";
    g.tensors[s_name] = Constant(s_name, shape, scale);
    g.tensors[b_name] = Constant(b_name, shape, shift);
    Tensor m = *x;
    m.name = mid;
    m.constant = false;
    g.tensors[mid] = m;
    Node mul{"Mul", bn.name + ".mul", {bn.inputs[0], s_name}, {mid}, {}};
    Node add{"Add", bn.name + ".add", {mid, b_name}, {bn.outputs[0]}, {}};
    g.nodes[i] = mul;
    g.nodes.insert(g.nodes.begin() + i + 1, add);
    ++i;
  }
  g.RemoveDead();
  return absl::OkStatus();
}

}  // namespace tunefarm::graph
