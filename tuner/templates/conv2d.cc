// conv2d: direct NCHW convolution, O[n, k, y, x] = Σ_{c, r, s} I[n, c, y·st + r - pad,
// x·st + s - pad] · W[k, c, r, s]. The schedule tiles output channels (unrolled), rows and
// columns (vectorized) into a register block accumulated locally, splits the input channels,
// and orders the reduction by a knob (TVM's conv2d_nchw x86 space).
#include "tuner/templates/conv_common.h"
#include "tuner/templates/gpu_conv.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

class Conv2dTemplate : public DirectConvTemplate {
 public:
  std::string name() const override { return "conv2d"; }
  std::string args_doc() const override { return "N,C,H,W,K,R,S,stride,pad"; }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& a,
                                        ir::DataType dtype) const override {
    return MakeConvWorkload(name(), a, dtype, {ir::DataType::Float(32), ir::DataType::Float(16)});
  }

 protected:
  absl::StatusOr<ConvShape> Shape(const Workload& w) const override { return ConvShapeOf(w); }
  absl::StatusOr<DirectConv> Define(const ConvShape& sh, ir::DataType dtype) const override {
    return MakeDirectConv(sh, dtype);
  }
  void DefineGpuSpace(const ConvShape& sh, ConfigSpace* space) const override {
    DefineGpuConvSpace(sh, space);
  }
  absl::StatusOr<Instance> InstantiateGpu(const ConvShape& sh, ir::DataType dtype,
                                          const Config& config) const override {
    return InstantiateGpuConv(name(), sh, dtype, config);
  }

  void DefineCpuSpace(const ConvShape& sh, ConfigSpace* space) const override {
    space->DefineSplit("tile_k", sh.k, 2, SplitPolicy::kFactors, 16);
    space->DefineSplit("tile_oh", sh.oh, 2, SplitPolicy::kFactors, 4);
    space->DefineSplit("tile_ow", sh.ow, 2, SplitPolicy::kFactors, 64);
    space->DefineSplit("tile_c", sh.c, 2, SplitPolicy::kFactors, 16);
    space->DefineReorder("reduce_order", {{0, 1, 2, 3}, {0, 3, 1, 2}});
  }

  // Output channels, rows and columns tiled into a register block (columns vectorized), the
  // (batch, channel block) loop parallel; the input channels split and the reduction ordered
  // by reduce_order in the local stage.
  absl::StatusOr<Window> ScheduleCpu(const Config& config, bool parallel, schedule::Stage& o,
                                     schedule::Stage& l) const override {
    const std::string tmpl = name();
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_k, config.Split("tile_k"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_oh, config.Split("tile_oh"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_ow, config.Split("tile_ow"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_c, config.Split("tile_c"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(reduce_order, config.Reorder("reduce_order"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ks, o.Split(o.axis(1), tile_k[1]), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ys, o.Split(o.axis(2), tile_oh[1]), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(xs, o.Split(o.axis(3), tile_ow[1]), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(
        o.Reorder({o.axis(0), ks.first, ys.first, xs.first, ks.second, ys.second, xs.second}),
        tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(o.Vectorize(xs.second), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(outer, o.Fuse(o.axis(0), ks.first), tmpl);
    if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(o.Parallel(outer), tmpl);

    TF_TEMPLATE_RETURN_IF_ERROR(l.ComputeAt(o, xs.first), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(cs, l.Split(l.reduce_axis(0), tile_c[1]), tmpl);
    std::vector<te::IterVar> red = {cs.first, l.reduce_axis(1), l.reduce_axis(2), cs.second};
    std::vector<te::IterVar> order = {l.axis(0)};
    for (int p : reduce_order) order.push_back(red[p]);
    for (int a : {1, 2, 3}) order.push_back(l.axis(a));
    TF_TEMPLATE_RETURN_IF_ERROR(l.Reorder(order), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Unroll(l.axis(1)), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Unroll(l.axis(2)), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Vectorize(l.axis(3)), tmpl);
    return Window{l.reduce_axis(1), l.reduce_axis(2)};
  }
};

TF_REGISTER_TEMPLATE(Conv2dTemplate);

}  // namespace
}  // namespace tunefarm::tuner
