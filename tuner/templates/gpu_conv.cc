#include "tuner/templates/gpu_conv.h"

#include "tuner/templates/gpu_common.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

// The output tiling both convolutions share: axis 1 (channels), 2 (rows), 3 (columns) split
// into [blocks, threads, per thread]; (batch, channel blocks) fused on blockIdx.z.
struct OutputTiling {
  te::IterVar block_x;   // Innermost block loop.
  te::IterVar thread_x;  // Innermost thread loop.
  BlockThreads threads;
};

absl::StatusOr<OutputTiling> TileOutput(const std::string& tmpl, schedule::Stage& o,
                                        const std::vector<int64_t>& tc,
                                        const std::vector<int64_t>& ty,
                                        const std::vector<int64_t>& tx) {
  TF_ASSIGN_OR_RETURN_SCHED(cb, o.Split(o.axis(1), tc[1] * tc[2]), tmpl);
  TF_ASSIGN_OR_RETURN_SCHED(yb, o.Split(o.axis(2), ty[1] * ty[2]), tmpl);
  TF_ASSIGN_OR_RETURN_SCHED(xb, o.Split(o.axis(3), tx[1] * tx[2]), tmpl);
  TF_ASSIGN_OR_RETURN_SCHED(ct, o.Split(cb.second, tc[2]), tmpl);
  TF_ASSIGN_OR_RETURN_SCHED(yt, o.Split(yb.second, ty[2]), tmpl);
  TF_ASSIGN_OR_RETURN_SCHED(xt, o.Split(xb.second, tx[2]), tmpl);
  TF_RETURN_IF_SCHED_ERROR(o.Reorder({o.axis(0), cb.first, yb.first, xb.first, ct.first, yt.first,
                                      xt.first, ct.second, yt.second, xt.second}),
                           tmpl);
  TF_ASSIGN_OR_RETURN_SCHED(nc, o.Fuse(o.axis(0), cb.first), tmpl);
  TF_RETURN_IF_SCHED_ERROR(o.Bind(nc, "blockIdx.z"), tmpl);
  TF_RETURN_IF_SCHED_ERROR(o.Bind(yb.first, "blockIdx.y"), tmpl);
  TF_RETURN_IF_SCHED_ERROR(o.Bind(xb.first, "blockIdx.x"), tmpl);
  TF_RETURN_IF_SCHED_ERROR(o.Bind(ct.first, "threadIdx.z"), tmpl);
  TF_RETURN_IF_SCHED_ERROR(o.Bind(yt.first, "threadIdx.y"), tmpl);
  TF_RETURN_IF_SCHED_ERROR(o.Bind(xt.first, "threadIdx.x"), tmpl);
  for (const te::IterVar& iv : {ct.second, yt.second, xt.second}) {
    TF_RETURN_IF_SCHED_ERROR(o.Unroll(iv), tmpl);
  }
  return OutputTiling{xb.first, xt.first, BlockThreads{tc[1], ty[1], tx[1]}};
}

// What both convolutions start from: the output tiled (TileOutput) with a register tile per
// thread accumulated in a "local" stage computed at the innermost thread loop, and the padded
// input read through a "shared" window stage (the padding inlined into its fill).
struct ConvStages {
  te::Tensor local, window;
  OutputTiling tiling;
};

absl::StatusOr<ConvStages> StageConv(const std::string& tmpl, const DirectConv& conv,
                                     schedule::Schedule& s, const Config& config,
                                     const char* channel_knob) {
  TF_ASSIGN_OR_RETURN_SCHED(local, s.CacheWrite(conv.out, "local"), tmpl);
  TF_ASSIGN_OR_RETURN_SCHED(window, s.CacheRead(conv.padded, "shared", {local}), tmpl);
  if (conv.padded != conv.input) TF_RETURN_IF_SCHED_ERROR(s[conv.padded].ComputeInline(), tmpl);
  auto tiling = TileOutput(tmpl, s[conv.out], config.Split(channel_knob), config.Split("tile_oh"),
                           config.Split("tile_ow"));
  if (!tiling.ok()) return tiling.status();
  TF_RETURN_IF_SCHED_ERROR(s[local].ComputeAt(s[conv.out], tiling->thread_x), tmpl);
  return ConvStages{local, window, *tiling};
}

void DefineOutputTiles(const char* channel_knob, const ConvShape& sh, ConfigSpace* space) {
  // Threads at most 8 x 8 x 16, per-thread tiles at most 8 x 8 x 16 outputs.
  space->DefineSplit(channel_knob, sh.k, 3, SplitPolicy::kFactors, 8);
  space->DefineSplit("tile_oh", sh.oh, 3, SplitPolicy::kFactors, 8);
  space->DefineSplit("tile_ow", sh.ow, 3, SplitPolicy::kFactors, 16);
}

}  // namespace

void DefineGpuConvSpace(const ConvShape& sh, ConfigSpace* space) {
  DefineOutputTiles("tile_k", sh, space);
  space->DefineSplit("tile_rc", sh.c, 2, SplitPolicy::kFactors, 16);
  space->DefineAnnotate("unroll_rs", {"none", "unroll"});
  space->DefineOther("vector", {1, 2, 4});  // lanes of the weight fill's global loads
}

absl::StatusOr<Instance> InstantiateGpuConv(const std::string& tmpl, const ConvShape& sh,
                                            ir::DataType dtype, const Config& config) {
  DirectConv conv = MakeDirectConv(sh, dtype);
  TF_ASSIGN_OR_RETURN_SCHED(inst, MakeInstance({conv.input, conv.weight, conv.out}), tmpl);
  schedule::Schedule& s = *inst.sch;
  auto staged = StageConv(tmpl, conv, s, config, "tile_k");
  if (!staged.ok()) return staged.status();
  TF_ASSIGN_OR_RETURN_SCHED(weights, s.CacheRead(conv.weight, "shared", {staged->local}), tmpl);
  schedule::Stage& l = s[staged->local];
  TF_ASSIGN_OR_RETURN_SCHED(rc, l.Split(l.reduce_axis(0), config.Split("tile_rc")[1]), tmpl);
  TF_RETURN_IF_SCHED_ERROR(l.Reorder({rc.first, rc.second, l.reduce_axis(1), l.reduce_axis(2),
                                      l.axis(1), l.axis(2), l.axis(3)}),
                           tmpl);
  for (int a = 1; a <= 3; ++a) TF_RETURN_IF_SCHED_ERROR(l.Unroll(l.axis(a)), tmpl);
  if (absl::Status st = UnrollWindow(tmpl, l, l.reduce_axis(1), l.reduce_axis(2), config);
      !st.ok()) {
    return st;
  }
  // The weights of a step are contiguous runs of tile_rc·R·S elements: vector loads. The
  // window is filled element by element (its padding is a condition per element).
  const int64_t rc_step = config.Split("tile_rc")[1];
  const int64_t lanes = FillLanes(config.Other("vector"), dtype, rc_step * sh.r * sh.s);
  for (const auto& [t, fill_lanes] :
       {std::pair{staged->window, int64_t{1}}, std::pair{weights, lanes}}) {
    schedule::Stage& ss = s[t];
    TF_RETURN_IF_SCHED_ERROR(ss.ComputeAt(l, rc.first), tmpl);
    TF_RETURN_IF_SCHED_ERROR(CooperativeFetch(tmpl, ss, staged->tiling.threads, fill_lanes), tmpl);
  }
  return inst;
}

void DefineGpuDepthwiseSpace(const ConvShape& sh, ConfigSpace* space) {
  DefineOutputTiles("tile_c", sh, space);
  space->DefineAnnotate("unroll_rs", {"none", "unroll"});
}

absl::StatusOr<Instance> InstantiateGpuDepthwise(const std::string& tmpl, const ConvShape& sh,
                                                 ir::DataType dtype, const Config& config) {
  DirectConv conv = MakeDepthwiseConv(sh, dtype);
  TF_ASSIGN_OR_RETURN_SCHED(inst, MakeInstance({conv.input, conv.weight, conv.out}), tmpl);
  schedule::Schedule& s = *inst.sch;
  auto staged = StageConv(tmpl, conv, s, config, "tile_c");
  if (!staged.ok()) return staged.status();
  schedule::Stage& l = s[staged->local];
  TF_RETURN_IF_SCHED_ERROR(
      l.Reorder({l.reduce_axis(0), l.reduce_axis(1), l.axis(1), l.axis(2), l.axis(3)}), tmpl);
  for (int a = 1; a <= 3; ++a) TF_RETURN_IF_SCHED_ERROR(l.Unroll(l.axis(a)), tmpl);
  if (absl::Status st = UnrollWindow(tmpl, l, l.reduce_axis(0), l.reduce_axis(1), config);
      !st.ok()) {
    return st;
  }
  schedule::Stage& ws = s[staged->window];
  TF_RETURN_IF_SCHED_ERROR(ws.ComputeAt(s[conv.out], staged->tiling.block_x), tmpl);
  TF_RETURN_IF_SCHED_ERROR(CooperativeFetch(tmpl, ws, staged->tiling.threads, 1), tmpl);
  return inst;
}

}  // namespace tunefarm::tuner
