// conv2d: direct NCHW convolution, O[n, k, y, x] = Σ_{c, r, s} I[n, c, y·st + r - pad,
// x·st + s - pad] · W[k, c, r, s]. The schedule tiles output channels (unrolled), rows and
// columns (vectorized) into a register block accumulated locally, splits the input channels,
// and orders the reduction by a knob (TVM's conv2d_nchw x86 space).
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/conv_common.h"
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
    std::vector<int64_t> positive = a;
    if (positive.size() == 9) positive[8] += 1;  // pad may be 0.
    if (absl::Status s = CheckArgs(name(), positive, args_doc()); !s.ok()) return s;
    if (absl::Status s = CheckDtype(name(), dtype, {ir::DataType::Float(32)}); !s.ok()) return s;
    auto sh = MakeConvShape(name(), a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
    if (!sh.ok()) return sh.status();
    double flop = 2.0 * sh->n * sh->k * sh->oh * sh->ow * sh->c * sh->r * sh->s;
    return Workload{name(), a, dtype, flop};
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target&,
                           ConfigSpace* space) const override {
    ConvShape sh = Shape(w);
    space->DefineSplit("tile_k", sh.k, 2, SplitPolicy::kFactors, 16);
    space->DefineSplit("tile_oh", sh.oh, 2, SplitPolicy::kFactors, 4);
    space->DefineSplit("tile_ow", sh.ow, 2, SplitPolicy::kFactors, 64);
    space->DefineSplit("tile_c", sh.c, 2, SplitPolicy::kFactors, 16);
    space->DefineReorder("reduce_order", {{0, 1, 2, 3}, {0, 3, 1, 2}});
    space->DefineAnnotate("unroll_rs", {"none", "unroll"});
    space->DefineOther("parallel", {0, 1});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target&,
                                       const Config* config) const override {
    ConvShape sh = Shape(w);
    auto i32 = [](int64_t v) { return Expr(static_cast<int>(v)); };
    Tensor input = te::Placeholder({i32(sh.n), i32(sh.c), i32(sh.h), i32(sh.w)}, w.dtype, "I");
    Tensor weight = te::Placeholder({i32(sh.k), i32(sh.c), i32(sh.r), i32(sh.s)}, w.dtype, "W");
    Tensor padded = PadInput(input, sh);
    te::IterVar rc = te::ReduceAxis(i32(sh.c), "rc");
    te::IterVar ry = te::ReduceAxis(i32(sh.r), "ry");
    te::IterVar rx = te::ReduceAxis(i32(sh.s), "rx");
    Tensor out = te::Compute(
        {i32(sh.n), i32(sh.k), i32(sh.oh), i32(sh.ow)},
        [&](const std::vector<Var>& i) {
          return te::Sum(padded(i[0], rc->var, i[2] * i32(sh.stride) + ry->var,
                                i[3] * i32(sh.stride) + rx->var) *
                             weight(i[1], rc->var, ry->var, rx->var),
                         {rc, ry, rx});
        },
        "O");
    Instance inst;
    inst.args = {input, weight, out};
    auto sch_or = schedule::Schedule::Create({out});
    if (!sch_or.ok()) return sch_or.status();
    inst.sch = std::move(*sch_or);
    if (config == nullptr) return inst;
    schedule::Schedule& s = *inst.sch;
    const std::string tmpl = name();
    bool parallel = config->Other("parallel") != 0;

    TF_ASSIGN_OR_RETURN_SCHED(local, s.CacheWrite(out, "local"), tmpl);
    schedule::Stage& o = s[out];
    TF_ASSIGN_OR_RETURN_SCHED(ks, o.Split(o.axis(1), config->Split("tile_k")[1]), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(ys, o.Split(o.axis(2), config->Split("tile_oh")[1]), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(xs, o.Split(o.axis(3), config->Split("tile_ow")[1]), tmpl);
    TF_RETURN_IF_SCHED_ERROR(
        o.Reorder({o.axis(0), ks.first, ys.first, xs.first, ks.second, ys.second, xs.second}),
        tmpl);
    TF_RETURN_IF_SCHED_ERROR(o.Vectorize(xs.second), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(outer, o.Fuse(o.axis(0), ks.first), tmpl);
    if (parallel) TF_RETURN_IF_SCHED_ERROR(o.Parallel(outer), tmpl);

    schedule::Stage& l = s[local];
    TF_RETURN_IF_SCHED_ERROR(l.ComputeAt(o, xs.first), tmpl);
    TF_ASSIGN_OR_RETURN_SCHED(cs, l.Split(l.reduce_axis(0), config->Split("tile_c")[1]), tmpl);
    std::vector<te::IterVar> red = {cs.first, l.reduce_axis(1), l.reduce_axis(2), cs.second};
    std::vector<te::IterVar> order = {l.axis(0)};
    for (int p : config->Reorder("reduce_order")) order.push_back(red[p]);
    for (int a : {1, 2, 3}) order.push_back(l.axis(a));
    TF_RETURN_IF_SCHED_ERROR(l.Reorder(order), tmpl);
    TF_RETURN_IF_SCHED_ERROR(l.Unroll(l.axis(1)), tmpl);
    TF_RETURN_IF_SCHED_ERROR(l.Unroll(l.axis(2)), tmpl);
    TF_RETURN_IF_SCHED_ERROR(l.Vectorize(l.axis(3)), tmpl);
    if (config->Annotate("unroll_rs") == "unroll") {
      TF_RETURN_IF_SCHED_ERROR(l.Unroll(l.reduce_axis(1)), tmpl);
      TF_RETURN_IF_SCHED_ERROR(l.Unroll(l.reduce_axis(2)), tmpl);
    }
    if (padded != input) {
      schedule::Stage& p = s[padded];
      TF_ASSIGN_OR_RETURN_SCHED(pf, p.Fuse(p.axis(0), p.axis(1)), tmpl);
      if (parallel) TF_RETURN_IF_SCHED_ERROR(p.Parallel(pf), tmpl);
    }
    return inst;
  }

 private:
  static ConvShape Shape(const Workload& w) {
    const auto& a = w.args;
    return *MakeConvShape("conv2d", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]);
  }
};

TF_REGISTER_TEMPLATE(Conv2dTemplate);

}  // namespace
}  // namespace tunefarm::tuner
