// depthwise_conv2d: NCHW, channel multiplier 1: O[n, c, y, x] = Σ_{r, s} I[n, c, y·st + r - pad,
// x·st + s - pad] · W[c, 0, r, s]. The schedule tiles rows and columns (vectorized) into a
// local register block, with the kernel window optionally unrolled, and runs (n, c) planes in
// parallel.
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/conv_common.h"
#include "tuner/templates/gpu_conv.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

using ir::Expr;
using ir::Var;
using te::Tensor;

class DepthwiseConv2dTemplate : public Template {
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
    auto sh = Shape(a);
    if (!sh.ok()) return sh.status();
    return Workload{name(), a, dtype, 2.0 * sh->n * sh->c * sh->oh * sh->ow * sh->r * sh->s};
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    absl::StatusOr<ConvShape> shape = Shape(w.args);
    if (!shape.ok()) return shape.status();
    const ConvShape& sh = *shape;
    if (target.kind == codegen::Target::Kind::kCUDA) {
      DefineGpuDepthwiseSpace(sh, space);
      return absl::OkStatus();
    }
    space->DefineSplit("tile_oh", sh.oh, 2, SplitPolicy::kFactors, 8);
    space->DefineSplit("tile_ow", sh.ow, 2, SplitPolicy::kFactors, 64);
    space->DefineAnnotate("unroll_rs", {"none", "unroll"});
    space->DefineOther("parallel", {0, 1});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    const std::string tmpl = name();
    absl::StatusOr<ConvShape> shape = Shape(w.args);
    if (!shape.ok()) return shape.status();
    const ConvShape& sh = *shape;
    if (target.kind == codegen::Target::Kind::kCUDA && config != nullptr) {
      return InstantiateGpuDepthwise(tmpl, sh, w.dtype, *config);
    }
    TF_TEMPLATE_ASSIGN_OR_RETURN(conv, MakeDepthwiseConv(sh, w.dtype), tmpl);
    const Tensor& input = conv.input;
    const Tensor& weight = conv.weight;
    const Tensor& out = conv.out;
    TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({input, weight, out}), tmpl);
    if (config == nullptr) return inst;
    schedule::Schedule& s = *inst.sch;
    TF_TEMPLATE_ASSIGN_OR_RETURN(parallel_knob, config->Other("parallel"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_oh, config->Split("tile_oh"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_ow, config->Split("tile_ow"), tmpl);
    const bool parallel = parallel_knob != 0;
    TF_TEMPLATE_ASSIGN_OR_RETURN(local, s.CacheWrite(out, "local"), tmpl);
    TF_TEMPLATE_STAGE(o, s, out, tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ys, o.Split(o.axis(2), tile_oh[1]), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(xs, o.Split(o.axis(3), tile_ow[1]), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(
        o.Reorder({o.axis(0), o.axis(1), ys.first, xs.first, ys.second, xs.second}), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(o.Vectorize(xs.second), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(plane, o.Fuse(o.axis(0), o.axis(1)), tmpl);
    if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(o.Parallel(plane), tmpl);
    TF_TEMPLATE_STAGE(l, s, local, tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.ComputeAt(o, xs.first), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(
        l.Reorder({l.reduce_axis(0), l.reduce_axis(1), l.axis(2), l.axis(3)}), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Unroll(l.axis(2)), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Vectorize(l.axis(3)), tmpl);
    if (absl::Status st = UnrollWindow(tmpl, l, l.reduce_axis(0), l.reduce_axis(1), *config);
        !st.ok()) {
      return st;
    }
    if (absl::Status st = SchedulePaddingPlanes(tmpl, s, conv, parallel); !st.ok()) return st;
    return inst;
  }

 private:
  // InvalidArgument: not the 8 args of MakeWorkload.
  static absl::StatusOr<ConvShape> Shape(const std::vector<int64_t>& a) {
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
