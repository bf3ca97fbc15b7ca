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
  TF_TEMPLATE_ASSIGN_OR_RETURN(cb, o.Split(o.axis(1), tc[1] * tc[2]), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(yb, o.Split(o.axis(2), ty[1] * ty[2]), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(xb, o.Split(o.axis(3), tx[1] * tx[2]), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(ct, o.Split(cb.second, tc[2]), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(yt, o.Split(yb.second, ty[2]), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(xt, o.Split(xb.second, tx[2]), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(o.Reorder({o.axis(0), cb.first, yb.first, xb.first, ct.first,
                                         yt.first, xt.first, ct.second, yt.second, xt.second}),
                              tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(nc, o.Fuse(o.axis(0), cb.first), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(o.Bind(nc, "blockIdx.z"), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(o.Bind(yb.first, "blockIdx.y"), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(o.Bind(xb.first, "blockIdx.x"), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(o.Bind(ct.first, "threadIdx.z"), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(o.Bind(yt.first, "threadIdx.y"), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(o.Bind(xt.first, "threadIdx.x"), tmpl);
  for (const te::IterVar& iv : {ct.second, yt.second, xt.second}) {
    TF_TEMPLATE_RETURN_IF_ERROR(o.Unroll(iv), tmpl);
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
  TF_TEMPLATE_ASSIGN_OR_RETURN(local, s.CacheWrite(conv.out, "local"), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(window, s.CacheRead(conv.padded, "shared", {local}), tmpl);
  if (conv.padded != conv.input) {
    TF_TEMPLATE_STAGE(ps, s, conv.padded, tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ps.ComputeInline(), tmpl);
  }
  TF_TEMPLATE_ASSIGN_OR_RETURN(tc, config.Split(channel_knob), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(ty, config.Split("tile_oh"), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(tx, config.Split("tile_ow"), tmpl);
  TF_TEMPLATE_STAGE(os, s, conv.out, tmpl);
  TF_TEMPLATE_STAGE(ls, s, local, tmpl);
  auto tiling = TileOutput(tmpl, os, tc, ty, tx);
  if (!tiling.ok()) return tiling.status();
  TF_TEMPLATE_RETURN_IF_ERROR(ls.ComputeAt(os, tiling->thread_x), tmpl);
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
  TF_TEMPLATE_ASSIGN_OR_RETURN(conv, MakeDirectConv(sh, dtype), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(tile_rc, config.Split("tile_rc"), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(vector, config.Other("vector"), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({conv.input, conv.weight, conv.out}), tmpl);
  schedule::Schedule& s = *inst.sch;
  auto staged = StageConv(tmpl, conv, s, config, "tile_k");
  if (!staged.ok()) return staged.status();
  TF_TEMPLATE_ASSIGN_OR_RETURN(weights, s.CacheRead(conv.weight, "shared", {staged->local}), tmpl);
  TF_TEMPLATE_STAGE(l, s, staged->local, tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(rc, l.Split(l.reduce_axis(0), tile_rc[1]), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(l.Reorder({rc.first, rc.second, l.reduce_axis(1), l.reduce_axis(2),
                                         l.axis(1), l.axis(2), l.axis(3)}),
                              tmpl);
  for (int a = 1; a <= 3; ++a) TF_TEMPLATE_RETURN_IF_ERROR(l.Unroll(l.axis(a)), tmpl);
  if (absl::Status st = UnrollWindow(tmpl, l, l.reduce_axis(1), l.reduce_axis(2), config);
      !st.ok()) {
    return st;
  }
  // The weights of a step are contiguous runs of tile_rc·R·S elements: vector loads. The
  // window is filled element by element (its padding is a condition per element).
  const int64_t lanes = FillLanes(vector, dtype, tile_rc[1] * sh.r * sh.s);
  for (const auto& [t, fill_lanes] :
       {std::pair{staged->window, int64_t{1}}, std::pair{weights, lanes}}) {
    TF_TEMPLATE_STAGE(ss, s, t, tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(ss.ComputeAt(l, rc.first), tmpl);
    TF_TEMPLATE_RETURN_IF_ERROR(CooperativeFetch(tmpl, ss, staged->tiling.threads, fill_lanes),
                                tmpl);
  }
  return inst;
}

void DefineGpuDepthwiseSpace(const ConvShape& sh, ConfigSpace* space) {
  DefineOutputTiles("tile_c", sh, space);
  space->DefineAnnotate("unroll_rs", {"none", "unroll"});
}

absl::StatusOr<Instance> InstantiateGpuDepthwise(const std::string& tmpl, const ConvShape& sh,
                                                 ir::DataType dtype, const Config& config) {
  TF_TEMPLATE_ASSIGN_OR_RETURN(conv, MakeDepthwiseConv(sh, dtype), tmpl);
  TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({conv.input, conv.weight, conv.out}), tmpl);
  schedule::Schedule& s = *inst.sch;
  auto staged = StageConv(tmpl, conv, s, config, "tile_c");
  if (!staged.ok()) return staged.status();
  TF_TEMPLATE_STAGE(l, s, staged->local, tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(
      l.Reorder({l.reduce_axis(0), l.reduce_axis(1), l.axis(1), l.axis(2), l.axis(3)}), tmpl);
  for (int a = 1; a <= 3; ++a) TF_TEMPLATE_RETURN_IF_ERROR(l.Unroll(l.axis(a)), tmpl);
  if (absl::Status st = UnrollWindow(tmpl, l, l.reduce_axis(0), l.reduce_axis(1), config);
      !st.ok()) {
    return st;
  }
  TF_TEMPLATE_STAGE(ws, s, staged->window, tmpl);
  TF_TEMPLATE_STAGE(os, s, conv.out, tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(ws.ComputeAt(os, staged->tiling.block_x), tmpl);
  TF_TEMPLATE_RETURN_IF_ERROR(CooperativeFetch(tmpl, ws, staged->tiling.threads, 1), tmpl);
  return inst;
}

}  // namespace tunefarm::tuner
