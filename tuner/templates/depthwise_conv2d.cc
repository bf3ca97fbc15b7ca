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
    if (target.kind == codegen::Target::Kind::kCUDA) {
      DefineGpuDepthwiseSpace(*Shape(w.args), space);
      return absl::OkStatus();
    }
    ConvShape sh = *Shape(w.args);
    space->DefineSplit("tile_oh", sh.oh, 2, SplitPolicy::kFactors, 8);
    space->DefineSplit("tile_ow", sh.ow, 2, SplitPolicy::kFactors, 64);
    space->DefineAnnotate("unroll_rs", {"none", "unroll"});
    space->DefineOther("parallel", {0, 1});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    if (target.kind == codegen::Target::Kind::kCUDA && config != nullptr) {
      return InstantiateGpuDepthwise(name(), *Shape(w.args), w.dtype, *config);
    }
    ConvShape sh = *Shape(w.args);
    DirectConv conv = MakeDepthwiseConv(sh, w.dtype);
    const Tensor& input = conv.input;
    const Tensor& weight = conv.weight;
    const Tensor& out = conv.out;
    TF_ASSIGN_OR_RETURN_SCHED(inst, MakeInstance({input, weight, out}), name());
    if (config == nullptr) return inst;
    schedule::Schedule& s = *inst.sch;
    const std::string tmpl = name();
    bool parallel = config->Other("parallel") != 0;
    TF_ASSIGN_OR_RETURN_SCHED(local, s.CacheWrite(out, "local"), tmpl);
    schedule::Stage& o = s[out];
    TF_ASSIGN_OR_RETURN_SCHED(ys, o.Split(o.axis(2), config->Split("tile_oh")[1]), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(xs, o.Split(o.axis(3), config->Split("tile_ow")[1]), tmpl);
    TF_RETURN_IF_SCHED_ERROR(
        o.Reorder({o.axis(0), o.axis(1), ys.first, xs.first, ys.second, xs.second}), tmpl);
    TF_RETURN_IF_SCHED_ERROR(o.Vectorize(xs.second), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(plane, o.Fuse(o.axis(0), o.axis(1)), tmpl);
    if (parallel) TF_RETURN_IF_SCHED_ERROR(o.Parallel(plane), tmpl);
    schedule::Stage& l = s[local];
    TF_RETURN_IF_SCHED_ERROR(l.ComputeAt(o, xs.first), tmpl);
    TF_RETURN_IF_SCHED_ERROR(l.Reorder({l.reduce_axis(0), l.reduce_axis(1), l.axis(2), l.axis(3)}),
                             tmpl);
    TF_RETURN_IF_SCHED_ERROR(l.Unroll(l.axis(2)), tmpl);
    TF_RETURN_IF_SCHED_ERROR(l.Vectorize(l.axis(3)), tmpl);
    if (absl::Status st = UnrollWindow(tmpl, l, l.reduce_axis(0), l.reduce_axis(1), *config);
        !st.ok()) {
      return st;
    }
    if (absl::Status st = SchedulePaddingPlanes(tmpl, s, conv, parallel); !st.ok()) return st;
    return inst;
  }

 private:
  static absl::StatusOr<ConvShape> Shape(const std::vector<int64_t>& a) {
    return MakeConvShape("depthwise_conv2d", a[0], a[1], a[2], a[3], a[1], a[4], a[5], a[6], a[7]);
  }
};

TF_REGISTER_TEMPLATE(DepthwiseConv2dTemplate);

}  // namespace
}  // namespace tunefarm::tuner
