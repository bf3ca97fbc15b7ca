// depthwise_conv2d: NCHW, channel multiplier 1: O[n, c, y, x] = Σ_{r, s} I[n, c, y·st + r - pad,
// x·st + s - pad] · W[c, 0, r, s]. The schedule tiles rows and columns (vectorized) into a
// local register block, with the kernel window optionally unrolled, and runs (n, c) planes in
// parallel.
#include "tuner/templates/conv_common.h"
#include "tuner/templates/gpu_conv.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

class DepthwiseConv2dTemplate : public DirectConvTemplate {
 public:
  std::string name() const override { return "depthwise_conv2d"; }
  std::string args_doc() const override { return "N,C,H,W,R,S,stride,pad"; }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& a,
                                        ir::DataType dtype) const override {
    std::vector<int64_t> positive = a;
    if (positive.size() == 8) positive[7] += 1;  // pad may be 0.
    if (absl::Status s = CheckArgs(name(), positive, args_doc()); !s.ok()) return s;
    if (absl::Status s =
            CheckDtype(name(), dtype, {ir::DataType::Float(32), ir::DataType::Float(16)});
        !s.ok()) {
      return s;
    }
    auto sh = ShapeOfArgs(a);
    if (!sh.ok()) return sh.status();
    return Workload{name(), a, dtype, 2.0 * sh->n * sh->c * sh->oh * sh->ow * sh->r * sh->s};
  }

 protected:
  absl::StatusOr<ConvShape> Shape(const Workload& w) const override { return ShapeOfArgs(w.args); }
  absl::StatusOr<DirectConv> Define(const ConvShape& sh, ir::DataType dtype) const override {
    return MakeDepthwiseConv(sh, dtype);
  }
  void DefineGpuSpace(const ConvShape& sh, ConfigSpace* space) const override {
    DefineGpuDepthwiseSpace(sh, space);
  }
  absl::StatusOr<Instance> InstantiateGpu(const ConvShape& sh, ir::DataType dtype,
                                          const Config& config) const override {
    return InstantiateGpuDepthwise(name(), sh, dtype, config);
  }

  void DefineCpuSpace(const ConvShape& sh, ConfigSpace* space) const override {
    space->DefineSplit("tile_oh", sh.oh, 2, SplitPolicy::kFactors, 8);
    space->DefineSplit("tile_ow", sh.ow, 2, SplitPolicy::kFactors, 64);
  }

  // Rows and columns tiled into a register block (columns vectorized), one (n, c) plane per
  // parallel iteration; the window's loops outside the block in the local stage.
  absl::StatusOr<Window> ScheduleCpu(const Config& config, bool parallel, schedule::Stage& o,
                                     schedule::Stage& l) const override {
    const std::string tmpl = name();
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_oh, config.Split("tile_oh"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_ow, config.Split("tile_ow"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ys, o.Split(o.axis(2), tile_oh[1]), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(xs, o.Split(o.axis(3), tile_ow[1]), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(
        o.Reorder({o.axis(0), o.axis(1), ys.first, xs.first, ys.second, xs.second}), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(o.Vectorize(xs.second), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(plane, o.Fuse(o.axis(0), o.axis(1)), tmpl);
    if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(o.Parallel(plane), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.ComputeAt(o, xs.first), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(
        l.Reorder({l.reduce_axis(0), l.reduce_axis(1), l.axis(2), l.axis(3)}), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Unroll(l.axis(2)), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Vectorize(l.axis(3)), tmpl);
    return Window{l.reduce_axis(0), l.reduce_axis(1)};
  }

 private:
  // InvalidArgument: not the 8 args of MakeWorkload.
  static absl::StatusOr<ConvShape> ShapeOfArgs(const std::vector<int64_t>& a) {
    if (a.size() != 8) {
      return absl::InvalidArgumentError(
          absl::StrCat("depthwise_conv2d takes 8 shape arguments, got ", a.size()));
    }
    return MakeConvShape("depthwise_conv2d", a[0], a[1], a[2], a[3], a[1], a[4], a[5], a[6], a[7]);
  }
};

TF_REGISTER_TEMPLATE(DepthwiseConv2dTemplate);

}  // namespace
}  // namespace tunefarm::tuner
