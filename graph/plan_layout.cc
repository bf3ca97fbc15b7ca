#include "graph/plan_layout.h"

#include "absl/strings/str_cat.h"

namespace tunefarm::graph {
namespace {

// The activation tensors a group reads (node inputs that are not constants and not written
// inside the group), in order of first read.
std::vector<std::string> ActivationInputs(const Graph& g, const FusedGroup& group) {
  std::vector<std::string> out;
  std::vector<std::string> written;
  for (int i : group.nodes) {
    for (const std::string& in : g.nodes[i].inputs) {
      if (in.empty() || g.IsConstant(in)) continue;
      if (std::find(written.begin(), written.end(), in) != written.end()) continue;
      if (std::find(out.begin(), out.end(), in) == out.end()) out.push_back(in);
    }
    for (const std::string& o : g.nodes[i].outputs) written.push_back(o);
  }
  if (group.kind == GroupKind::kLayout) out.push_back(group.layout_source);
  return out;
}

}  // namespace

int64_t ChannelBlockFor(int64_t channels) {
  if (channels % 16 == 0) return 16;
  if (channels <= 64) return channels;
  if (channels % 8 == 0) return 8;
  return channels;
}

std::vector<int64_t> MemoryShape(const Tensor& t, const Layout& layout) {
  if (layout.block == 0 || t.shape.size() != 4) return t.shape;
  return {t.shape[0], t.shape[1] / layout.block, t.shape[2], t.shape[3], layout.block};
}

bool SameMemory(const Tensor& t, const Layout& a, const Layout& b) {
  if (a == b) return true;
  return t.shape.size() == 4 && t.shape[2] * t.shape[3] == 1;
}

absl::StatusOr<LayoutPlan> PlanLayouts(Graph& g, std::vector<FusedGroup>& groups) {
  LayoutPlan plan;
  for (const std::string& in : g.inputs) plan.layouts[in] = Layout{0};
  std::vector<FusedGroup> out_groups;
  // A tensor read in a layout other than its own: the transform's output, made once.
  std::map<std::pair<std::string, int64_t>, std::string> transformed;
  auto read_in = [&](const std::string& tensor, Layout want,
                     std::map<std::string, std::string>& read_as) {
    const Tensor* t = g.Find(tensor);
    const Layout have = plan.layouts[tensor];
    if (SameMemory(*t, have, want)) return;
    auto key = std::make_pair(tensor, want.block);
    auto it = transformed.find(key);
    if (it == transformed.end()) {
      const std::string name = want.block == 0 ? absl::StrCat(tensor, "@nchw")
                                               : absl::StrCat(tensor, "@nchw", want.block, "c");
      Tensor copy = *t;
      copy.name = name;
      g.tensors[name] = copy;
      plan.layouts[name] = want;
      FusedGroup transform;
      transform.kind = GroupKind::kLayout;
      transform.label = want.block == 0 ? "to_nchw" : absl::StrCat("to_nchw", want.block, "c");
      transform.output = name;
      transform.layout_source = tensor;
      out_groups.push_back(transform);
      plan.read_as.push_back({});
      it = transformed.emplace(key, name).first;
    }
    read_as[tensor] = it->second;
  };
  for (FusedGroup& group : groups) {
    std::map<std::string, std::string> read_as;
    const std::vector<std::string> inputs = ActivationInputs(g, group);
    const Tensor* out = g.Find(group.output);
    Layout out_layout{0};
    switch (group.kind) {
      case GroupKind::kConv:
      case GroupKind::kDepthwise:
      case GroupKind::kMaxPool:
      case GroupKind::kAvgPool: {
        const Tensor* x = g.Find(inputs[0]);
        read_in(inputs[0], Layout{ChannelBlockFor(x->shape[1])}, read_as);
        out_layout = Layout{ChannelBlockFor(out->shape[1])};
        for (size_t k = 1; k < inputs.size(); ++k) read_in(inputs[k], out_layout, read_as);
        break;
      }
      case GroupKind::kGlobalAvgPool: {
        const Tensor* x = g.Find(inputs[0]);
        read_in(inputs[0], Layout{ChannelBlockFor(x->shape[1])}, read_as);
        break;
      }
      case GroupKind::kDense:
      case GroupKind::kBatchMatmul:
      case GroupKind::kSoftmax:
      case GroupKind::kLayerNorm:
      case GroupKind::kInjective:
      case GroupKind::kView:
        for (const std::string& in : inputs) read_in(in, Layout{0}, read_as);
        break;
      case GroupKind::kElementwise: {
        out_layout = plan.layouts[inputs.empty() ? "" : inputs[0]];
        for (const std::string& in : inputs) read_in(in, out_layout, read_as);
        break;
      }
      case GroupKind::kLayout:
        return absl::InternalError("layout groups are added by the planner only");
    }
    plan.layouts[group.output] = out_layout;
    out_groups.push_back(group);
    plan.read_as.push_back(std::move(read_as));
  }
  for (const std::string& o : g.outputs) {
    std::map<std::string, std::string> read_as;
    read_in(o, Layout{0}, read_as);
    plan.outputs.push_back(read_as.count(o) ? read_as[o] : o);
  }
  groups = std::move(out_groups);
  return plan;
}

}  // namespace tunefarm::graph
