// conv2d_u8s8_amx: a quantized convolution (uint8 input × int8 filter → int32) on Intel AMX
// tiles, in the layouts AMX reads: the input NHWC, the filter [K/16][R][S][C/4][16 outputs][4
// inputs] (the VNNI layout per tap, reordered once ahead of time as oneDNN reorders its own),
// the output NHWC. C must be a multiple of 64 and K of 16, and the target must have AMX-INT8.
//
// A tile's rows are output pixels along a row of the image: for each tap (r, s) and 64 input
// channels, its A tile is 16 input pixels, `stride · C` bytes apart, read straight from the
// (padded) input: the im2col matrix is never built. Each tensorized nest computes a block of
// `rows` pixels (up to two tiles of 16) by `tiles_n` × 16 output channels over the whole
// window and all input channels, its accumulators starting from zero (codegen/amx_nest.h).
// The padding, where there is one, is a copy of the input into a zero-bordered buffer, 64
// channels per vector. Knobs:
//   tile_mn  rows · 10 + tiles_n (rows dividing the output width), within the eight tile
//            registers;
//   order    0: for each output row, its pixel blocks outside the channel blocks; 1: channel
//            blocks outermost (each block's filter reused over the whole image);
//   parallel the outermost loop (rows of the image, or channel blocks) on the thread pool.
#include "compiler/codegen/amx_nest.h"
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/amx_common.h"
#include "tuner/templates/conv_common.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;
using te::Tensor;

constexpr char kAlternative[] = "examples/programs/conv2d_u8s8_vnni.te runs on AVX-512 VNNI";

class ConvAmxTemplate : public Template {
 public:
  std::string name() const override { return "conv2d_u8s8_amx"; }
  std::string args_doc() const override { return "N,C,H,W,K,R,S,stride,pad"; }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& args,
                                        DataType dtype) const override {
    absl::StatusOr<Workload> w = MakeConvWorkload(name(), args, dtype, {DataType::Int(8)});
    if (!w.ok()) return w.status();
    // The whole window and all input channels are one nest: R · S · C / 64 steps.
    if (args[5] * args[6] * (args[1] / kAmxStep) > codegen::kAmxMaxSteps) {
      return absl::InvalidArgumentError(
          absl::StrCat(name(), ": ", args[5], "x", args[6], " taps of ", args[1], " channels are ",
                       args[5] * args[6] * (args[1] / kAmxStep), " steps of 64 bytes, over the ",
                       codegen::kAmxMaxSteps, " one nest takes"));
    }
    if (args[1] % kAmxStep != 0 || args[4] % kAmxTile != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          name(), ": C must be a multiple of 64 and K of 16 (AMX tiles), got C=", args[1],
          " K=", args[4], "; examples/programs/conv2d_u8s8.te takes any channel count"));
    }
    return w;
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    absl::StatusOr<ConvShape> sh = ConvShapeOf(w);
    if (!sh.ok()) return sh.status();
    return DefineAmxKnobs(name(), target, kAlternative, sh->ow,
                          absl::StrCat("an output width of ", sh->ow), sh->k / kAmxTile, space);
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    const std::string tmpl = name();
    TF_TEMPLATE_ASSIGN_OR_RETURN(sh, ConvShapeOf(w), tmpl);
    const Tensor x =
        te::Placeholder({I32(sh.n), I32(sh.h), I32(sh.w), I32(sh.c)}, DataType::UInt(8), "X");
    const Tensor wt = te::Placeholder(
        {I32(sh.k / kAmxTile), I32(sh.r), I32(sh.s), I32(sh.c / 4), I32(kAmxTile), I32(4)},
        DataType::Int(8), "W");
    Tensor padded = x;
    if (sh.pad > 0) {
      TF_TEMPLATE_ASSIGN_OR_RETURN(
          p,
          te::Compute(
              {I32(sh.n), I32(sh.h + 2 * sh.pad), I32(sh.w + 2 * sh.pad), I32(sh.c)},
              [&](const std::vector<Var>& i) {
                const Expr y = i[1] - I32(sh.pad), xx = i[2] - I32(sh.pad);
                const Expr inside = y >= 0 && y < I32(sh.h) && xx >= 0 && xx < I32(sh.w);
                return ir::select(inside, x({i[0], y, xx, i[3]}),
                                  ir::cast(DataType::UInt(8), Expr(0)));
              },
              "pad"),
          tmpl);
      padded = p;
    }
    const te::IterVar ry = te::ReduceAxis(I32(sh.r), "ry");
    const te::IterVar rx = te::ReduceAxis(I32(sh.s), "rx");
    const te::IterVar q = te::ReduceAxis(I32(sh.c / 4), "q");
    TF_TEMPLATE_ASSIGN_OR_RETURN(
        out,
        te::Compute(
            {I32(sh.n), I32(sh.oh), I32(sh.ow), I32(sh.k)},
            [&](const std::vector<Var>& i) {
              const Expr f = i[3];
              return te::Sum(
                  ByteGroupSum(
                      [&](int u) {
                        return padded({i[0], i[1] * I32(sh.stride) + ry->var,
                                       i[2] * I32(sh.stride) + rx->var, I32(4) * q->var + I32(u)});
                      },
                      [&](int u) {
                        return wt({ir::floordiv(f, I32(kAmxTile)), ry->var, rx->var, q->var,
                                   ir::floormod(f, I32(kAmxTile)), I32(u)});
                      }),
                  {ry, rx, q});
            },
            "Y"),
        tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({x, wt, out}), tmpl);
    if (config == nullptr) return inst;  // The reference: the plain reduction.

    absl::StatusOr<AmxKnobs> knobs_or =
        ReadAmxKnobs(tmpl, *config, target, kAlternative, sh.ow, sh.k / kAmxTile);
    if (!knobs_or.ok()) return knobs_or.status();  // Internal (knobs) or InvalidArgument.
    const AmxKnobs& knobs = *knobs_or;
    schedule::Schedule& s = *inst.sch;
    if (sh.pad > 0) {
      // The padded copy: one vector of 64 channels per pixel, rows of the image in parallel.
      TF_TEMPLATE_STAGE(ps, s, padded, tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(prow, ps.Fuse(ps.axis(0), ps.axis(1)), tmpl);
      TF_TEMPLATE_ASSIGN_OR_RETURN(cs, ps.Split(ps.axis(3), kAmxStep), tmpl);
      TF_TEMPLATE_RETURN_IF_ERROR(ps.Vectorize(cs.second), tmpl);
      if (knobs.parallel) TF_TEMPLATE_RETURN_IF_ERROR(ps.Parallel(prow), tmpl);
    }
    // The whole window and all input channels in one nest (MakeWorkload checked the steps).
    TF_TEMPLATE_RETURN_IF_ERROR(
        ScheduleAmxNests(out, knobs, sh.c / kAmxStep, inst.sch.get()).status(), tmpl);
    return inst;
  }
};

TF_REGISTER_TEMPLATE(ConvAmxTemplate);

}  // namespace
}  // namespace tunefarm::tuner
