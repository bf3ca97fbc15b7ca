// conv2d_nchwc: the same NCHW convolution as `conv2d`, computed through channel-blocked
// layouts (TVM's conv2d_NCHWc for x86). Inside the kernel the padded input is packed to
// [N][C/cb][H'][W'][cb] and the weights to [K/kb][C/cb][R][S][cb][kb]; the output block
// [N][K/kb][OH][OW][kb] accumulates a row of `owb` outputs × kb channels in registers — the
// kb channels are one vector, each input element a broadcast — and is unpacked to NCHW at the
// end. Knobs: the channel blocks cb and kb, the output row block owb, unrolling of the kernel
// window and parallelism.
//
// conv2d_nchwc_packed is the same computation with the weights arriving already packed as
// [K/16][C/16][R][S][16 in][16 out] (cb = kb = 16), the way a compiler pre-packs constant
// weights once (TVM's alter-layout) and the way oneDNN is given its preferred weight format:
// the per-call weight transform disappears from the kernel.
#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/conv_common.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

using ir::Expr;
using ir::Var;
using te::Tensor;

class NchwcTemplate : public Template {
 public:
  // Block of the pre-packed weight layout.
  static constexpr int64_t kPackedBlock = 16;

  explicit NchwcTemplate(bool prepacked) : prepacked_(prepacked) {}
  std::string name() const override { return prepacked_ ? "conv2d_nchwc_packed" : "conv2d_nchwc"; }
  std::string args_doc() const override { return "N,C,H,W,K,R,S,stride,pad"; }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& a,
                                        ir::DataType dtype) const override {
    auto w = MakeConvWorkload(name(), a, dtype);
    if (w.ok() && prepacked_ && (a[1] % kPackedBlock != 0 || a[4] % kPackedBlock != 0)) {
      return absl::InvalidArgumentError(
          absl::StrCat(name(), ": input and output channels must be multiples of ", kPackedBlock,
                       " (got C=", a[1], ", K=", a[4], ")"));
    }
    return w;
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    if (target.kind == codegen::Target::Kind::kCUDA) {
      return absl::InvalidArgumentError(
          absl::StrCat(name(), " is a CPU layout (NCHWc); for '", target.str, "' use conv2d"));
    }
    absl::StatusOr<ConvShape> shape = ConvShapeOf(w);
    if (!shape.ok()) return shape.status();
    const ConvShape& sh = *shape;
    if (!prepacked_) {
      space->DefineSplit("tile_ic", sh.c, 2, SplitPolicy::kFactors, 16);
      space->DefineSplit("tile_oc", sh.k, 2, SplitPolicy::kFactors, 32);
    }
    space->DefineSplit("tile_ow", sh.ow, 2, SplitPolicy::kFactors, 16);
    // Output-channel blocks per register tile (each block one vector of kb channels).
    space->DefineSplit("tile_ocb", sh.k / (prepacked_ ? kPackedBlock : 1), 2, SplitPolicy::kFactors,
                       prepacked_ ? 4 : 1);
    space->DefineAnnotate("unroll_kernel", {"none", "unroll"});
    space->DefineOther("parallel", {0, 1});
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target&,
                                       const Config* config) const override {
    const std::string tmpl = name();
    absl::StatusOr<ConvShape> shape = ConvShapeOf(w);
    if (!shape.ok()) return shape.status();
    const ConvShape& sh = *shape;
    TF_TEMPLATE_ASSIGN_OR_RETURN(conv, MakeDirectConv(sh, w.dtype), tmpl);
    const Tensor& input = conv.input;
    const int64_t pb = kPackedBlock;
    const Tensor weight = prepacked_ ? te::Placeholder({I32(sh.k / pb), I32(sh.c / pb), I32(sh.r),
                                                        I32(sh.s), I32(pb), I32(pb)},
                                                       w.dtype, "W")
                                     : conv.weight;
    if (config == nullptr) {
      // The reference: the plain NCHW direct convolution (reading the packed weights in place
      // for the pre-packed variant).
      if (prepacked_) {
        te::IterVar rc = te::ReduceAxis(I32(sh.c), "rc");
        te::IterVar ry = te::ReduceAxis(I32(sh.r), "ry");
        te::IterVar rx = te::ReduceAxis(I32(sh.s), "rx");
        TF_TEMPLATE_ASSIGN_OR_RETURN(
            out,
            te::Compute(
                {I32(sh.n), I32(sh.k), I32(sh.oh), I32(sh.ow)},
                [&](const std::vector<Var>& i) {
                  Expr c = rc->var;
                  return te::Sum(
                      conv.padded(i[0], c, i[2] * I32(sh.stride) + ry->var,
                                  i[3] * I32(sh.stride) + rx->var) *
                          weight(ir::floordiv(i[1], I32(pb)), ir::floordiv(c, I32(pb)), ry->var,
                                 rx->var, ir::floormod(c, I32(pb)), ir::floormod(i[1], I32(pb))),
                      {rc, ry, rx});
                },
                "O"),
            tmpl);
        return MakeInstance({input, weight, out});
      }
      return MakeInstance({input, weight, conv.out});
    }
    int64_t cb = pb, kb = pb;
    if (!prepacked_) {
      TF_TEMPLATE_ASSIGN_OR_RETURN(tile_ic, config->Split("tile_ic"), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(tile_oc, config->Split("tile_oc"), tmpl);
      cb = tile_ic[1];
      kb = tile_oc[1];
    }
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_ow, config->Split("tile_ow"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(tile_ocb, config->Split("tile_ocb"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(unroll_kernel, config->Annotate("unroll_kernel"), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(parallel_knob, config->Other("parallel"), tmpl);
    const bool parallel = parallel_knob != 0;
    const int64_t owb = tile_ow[1];
    const int64_t hp = sh.h + 2 * sh.pad, wp = sh.w + 2 * sh.pad;
    TF_TEMPLATE_ASSIGN_OR_RETURN(packed_in,
                                 te::Compute(
                                     {I32(sh.n), I32(sh.c / cb), I32(hp), I32(wp), I32(cb)},
                                     [&](const std::vector<Var>& i) {
                                       Expr c = i[1] * I32(cb) + i[4];
                                       Expr y = i[2] - I32(sh.pad), x = i[3] - I32(sh.pad);
                                       if (sh.pad == 0) return input(i[0], c, y, x);
                                       Expr inside =
                                           y >= 0 && y < I32(sh.h) && x >= 0 && x < I32(sh.w);
                                       return ir::select(inside, input(i[0], c, y, x), Expr(0.0f));
                                     },
                                     "I_packed"),
                                 tmpl);
    Tensor packed_w = weight;
    if (!prepacked_) {
      TF_TEMPLATE_ASSIGN_OR_RETURN(
          repacked,
          te::Compute(
              {I32(sh.k / kb), I32(sh.c / cb), I32(sh.r), I32(sh.s), I32(cb), I32(kb)},
              [&](const std::vector<Var>& i) {
                return weight(i[0] * I32(kb) + i[5], i[1] * I32(cb) + i[4], i[2], i[3]);
              },
              "W_packed"),
          tmpl);
      packed_w = repacked;
    }
    te::IterVar rco = te::ReduceAxis(I32(sh.c / cb), "rco");
    te::IterVar ry = te::ReduceAxis(I32(sh.r), "ry");
    te::IterVar rx = te::ReduceAxis(I32(sh.s), "rx");
    te::IterVar rci = te::ReduceAxis(I32(cb), "rci");
    TF_TEMPLATE_ASSIGN_OR_RETURN(
        packed_out,
        te::Compute(
            {I32(sh.n), I32(sh.k / kb), I32(sh.oh), I32(sh.ow), I32(kb)},
            [&](const std::vector<Var>& i) {
              return te::Sum(packed_in(i[0], rco->var, i[2] * I32(sh.stride) + ry->var,
                                       i[3] * I32(sh.stride) + rx->var, rci->var) *
                                 packed_w(i[1], rco->var, ry->var, rx->var, rci->var, i[4]),
                             {rco, ry, rx, rci});
            },
            "O_packed"),
        tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(out,
                                 te::Compute(
                                     {I32(sh.n), I32(sh.k), I32(sh.oh), I32(sh.ow)},
                                     [&](const std::vector<Var>& i) {
                                       return packed_out(i[0], ir::floordiv(i[1], I32(kb)), i[2],
                                                         i[3], ir::floormod(i[1], I32(kb)));
                                     },
                                     "O"),
                                 tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({input, weight, out}), tmpl);
    schedule::Schedule& s = *inst.sch;

    TF_TEMPLATE_ASSIGN_OR_RETURN(local, s.CacheWrite(packed_out, "local"), tmpl);
    TF_TEMPLATE_STAGE(po, s, packed_out, tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(xs, po.Split(po.axis(3), owb), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(ks, po.Split(po.axis(1), tile_ocb[1]), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(
        po.Reorder({po.axis(0), ks.first, po.axis(2), xs.first, ks.second, xs.second, po.axis(4)}),
        tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(po.Vectorize(po.axis(4)), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(f1, po.Fuse(po.axis(0), ks.first), tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(f2, po.Fuse(f1, po.axis(2)), tmpl);
    if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(po.Parallel(f2), tmpl);

    TF_TEMPLATE_STAGE(l, s, local, tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.ComputeAt(po, xs.first), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Reorder({l.reduce_axis(0), l.reduce_axis(1), l.reduce_axis(2),
                                           l.reduce_axis(3), l.axis(1), l.axis(3), l.axis(4)}),
                                tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Unroll(l.axis(1)), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Unroll(l.axis(3)), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(l.Vectorize(l.axis(4)), tmpl);
    if (unroll_kernel == "unroll") {
      TF_TEMPLATE_RETURN_IF_ERROR(l.Unroll(l.reduce_axis(2)), tmpl);
    }

    TF_TEMPLATE_STAGE(pi, s, packed_in, tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(pif, pi.Fuse(pi.axis(0), pi.axis(1)), tmpl);
    if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(pi.Parallel(pif), tmpl);
    if (!prepacked_) {
      // Weight packing is a blocked transpose: per (ko, co) block read kb rows of cb·R·S
      // contiguous weights and write the kb × cb·R·S tile, which stays in L1.
      TF_TEMPLATE_STAGE(pw, s, packed_w, tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(
          pw.Reorder({pw.axis(0), pw.axis(1), pw.axis(5), pw.axis(4), pw.axis(2), pw.axis(3)}),
          tmpl);
      if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(pw.Parallel(pw.axis(0)), tmpl);
    }
    TF_TEMPLATE_STAGE(o, s, out, tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(of, o.Fuse(o.axis(0), o.axis(1)), tmpl);
    if (parallel) TF_TEMPLATE_RETURN_IF_ERROR(o.Parallel(of), tmpl);
    return inst;
  }

 private:
  bool prepacked_;
};

class Conv2dNchwcTemplate : public NchwcTemplate {
 public:
  Conv2dNchwcTemplate() : NchwcTemplate(/*prepacked=*/false) {}
};

class Conv2dNchwcPackedTemplate : public NchwcTemplate {
 public:
  Conv2dNchwcPackedTemplate() : NchwcTemplate(/*prepacked=*/true) {}
};

TF_REGISTER_TEMPLATE(Conv2dNchwcTemplate);
TF_REGISTER_TEMPLATE(Conv2dNchwcPackedTemplate);

}  // namespace
}  // namespace tunefarm::tuner
