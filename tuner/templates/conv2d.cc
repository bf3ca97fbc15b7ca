// conv2d: direct NCHW convolution, O[n, k, y, x] = Σ_{c, r, s} I[n, c, y·st + r - pad,
// x·st + s - pad] · W[k, c, r, s]. The schedule tiles output channels (unrolled), rows and
// columns (vectorized) into a register block accumulated locally, splits the input channels,
// and orders the reduction by a knob (TVM's conv2d_nchw x86 space).
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

class Conv2dTemplate : public Template {
 public:
  std::string name() const override { return "conv2d"; }
  std::string args_doc() const override { return "N,C,H,W,K,R,S,stride,pad"; }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& a,
                                        ir::DataType dtype) const override {
    return MakeConvWorkload(name(), a, dtype, {ir::DataType::Float(32), ir::DataType::Float(16)});
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    absl::StatusOr<ConvShape> shape = ConvShapeOf(w);
    if (!shape.ok()) return shape.status();
    const ConvShape& sh = *shape;
    if (target.kind == codegen::Target::Kind::kCUDA) {
      DefineGpuConvSpace(sh, space);
      return absl::OkStatus();
    }
    space->DefineSplit("tile_k", sh.k, 2, SplitPolicy::kFactors, 16);
    space->DefineSplit("tile_oh", sh.oh, 2, SplitPolicy::kFactors, 4);
    space->DefineSplit("tile_ow", sh.ow, 2, SplitPolicy::kFactors, 64);
    space->DefineSplit("tile_c", sh.c, 2, SplitPolicy::kFactors, 16);
    space->DefineReorder("reduce_order", {{0, 1, 2, 3}, {0, 3, 1, 2}});
    space->DefineAnnotate("unroll_rs", {"none", "unroll"});
    space->DefineOther("parallel", {0, 1});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    const std::string tmpl = name();
    absl::StatusOr<ConvShape> shape = ConvShapeOf(w);
    if (!shape.ok()) return shape.status();
    const ConvShape& sh = *shape;
    if (target.kind == codegen::Target::Kind::kCUDA && config != nullptr) {
      return InstantiateGpuConv(tmpl, sh, w.dtype, *config);
    }
    TF_TEMPLATE_ASSIGN_OR_RETURN(conv, MakeDirectConv(sh, w.dtype), tmpl);
    const Tensor& input = conv.input;
    const Tensor& out = conv.out;
    TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({input, conv.weight, out}), tmpl);
    if (config == nullptr) return inst;
    schedule::Schedule& s = *inst.sch;
    TF_TEMPLATE_ASSIGN_OR_RETURN(parallel_knob, config->Other("parallel"), tmpl);
    const bool parallel = parallel_knob != 0;
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_k, config->Split("tile_k"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_oh, config->Split("tile_oh"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_ow, config->Split("tile_ow"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_c, config->Split("tile_c"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(reduce_order, config->Reorder("reduce_order"), tmpl);

    TF_TEMPLATE_ASSIGN_OR_RETURN(local, s.CacheWrite(out, "local"), tmpl);
    TF_TEMPLATE_STAGE(o, s, out, tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ks, o.Split(o.axis(1), tile_k[1]), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ys, o.Split(o.axis(2), tile_oh[1]), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(xs, o.Split(o.axis(3), tile_ow[1]), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(
        o.Reorder({o.axis(0), ks.first, ys.first, xs.first, ks.second, ys.second, xs.second}),
        tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(o.Vectorize(xs.second), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(outer, o.Fuse(o.axis(0), ks.first), tmpl);
    if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(o.Parallel(outer), tmpl);

    TF_TEMPLATE_STAGE(l, s, local, tmpl);
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
    if (absl::Status st = UnrollWindow(tmpl, l, l.reduce_axis(1), l.reduce_axis(2), *config);
        !st.ok()) {
      return st;
    }
    if (absl::Status st = SchedulePaddingPlanes(tmpl, s, conv, parallel); !st.ok()) return st;
    return inst;
  }
};

TF_REGISTER_TEMPLATE(Conv2dTemplate);

}  // namespace
}  // namespace tunefarm::tuner
