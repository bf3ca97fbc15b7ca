#include "tuner/generated/generated_space.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/codegen/amx_nest.h"
#include "compiler/ir/ir_util.h"
#include "compiler/lower/lower.h"
#include "tuner/generated/amx_tiling.h"
#include "tuner/generated/drop_guards.h"
#include "tuner/generated/gpu_space.h"
#include "tuner/generated/hoist_weights.h"
#include "tuner/generated/knob_names.h"
#include "tuner/generated/pack_input.h"
#include "tuner/generated/padding_axes.h"
#include "tuner/generated/register_tile.h"
#include "tuner/generated/row_fusion.h"
#include "tuner/generated/sketch.h"
#include "tuner/generated/split_reduction.h"
#include "tuner/generated/table_axes.h"

namespace tunefarm::tuner {
namespace {

using te::IterVar;
using te::Tensor;

// Largest inner tile of the vectorized last axis, and of the other (unrolled) axes.
constexpr int64_t kMaxVectorTile = 64;
constexpr int64_t kMaxRowTile = 16;
constexpr int64_t kMaxReduceTile = 16;
constexpr int64_t kMaxOuterTile = 8;
// A last axis of at most this many elements, a power of two, is one vector.
constexpr int64_t kWholeVectorAxis = 16;
// Lanes of an elementwise stage computed at the top level: four AVX-512 vectors of float32,
// whose independent chains hide a long body's latency (a vectorized exp: 50 us over 12x128x128
// with 64 lanes, 88 us with 16, on one core here).
constexpr int64_t kRootVectorLanes = 64;
// The vectors of a short contiguous axis fused with the one above it (ScheduleRootStage): one
// AVX-512 register, so that the unaligned ends of a padded row are short.
constexpr int kRegisterBytes = 64;
// The block of a packed copy's in-register transpose (codegen's EmitTransposedCopies).
constexpr int64_t kTransposeBlock = 16;
// Unrolled register tiles stay small enough for LLVM to compile in milliseconds.
constexpr int64_t kMaxUnrolledRows = 32;
constexpr int64_t kMaxUnrolledPoints = 256;
// The "prefetch" knob: software prefetch of what a single-row reduction streams (a GEMV's
// weights), this many bytes ahead, or none (0). A hand-written GEMV over the packed layout
// (docs/cpu_kernels.md, "Software prefetch for the GEMV rows") ran as fast at 512 to 4,096 bytes
// ahead: one distance besides none keeps the space small.
constexpr char kPrefetchKnob[] = "prefetch";
constexpr int64_t kPrefetchBytes = 1024;

// Whether all of `t` fits a core's L1 data cache (32 KiB and more on the CPUs we target), where
// it stays once read: a GEMV's input row, which every block of outputs reads again. Prefetching
// it would only add instructions (one a reduction step, several a line).
bool FitsL1(const Tensor& t) {
  constexpr int64_t kL1Bytes = 32 * 1024;
  int64_t bytes = t.dtype().bytes();
  for (const ir::Expr& d : t.shape()) {
    const int64_t* n = ir::AsConstInt(d);
    if (n == nullptr) return false;
    bytes *= *n;
  }
  return bytes <= kL1Bytes;
}

int64_t Extent(const IterVar& iv) { return *ir::AsConstInt(iv->dom.extent); }

// The order knob's value that moves the second axis's outer loop inside the other outer loops.
constexpr int64_t kOrderSweep = 2;

// Whether a tiled stage offers kOrderSweep: its reduction has at least four axes and reuses
// values along the second (ReusedAlong: something it reads does not depend on it), which has
// more than one point (with one, the sweep is order 0 again: MobileNetV2's 96->24 pointwise
// layer has one block of 24 output channels). A channel-blocked convolution (n, f, y, x, fb)
// then sweeps every block of output channels over one tile of pixels, whose input stays in L1
// while the weights stream from L2, instead of sweeping every pixel under one block of
// weights, which re-reads the whole input from the next level once per block: for a 1×1
// convolution of stride 2 the rows it reads and the lines between its reads do not fit L2.
bool SweepsSecondAxis(const TiledStage& ts) {
  return ts.accumulator.defined() && ts.writer.compute()->axis.size() >= 4 &&
         ts.accumulator.compute()->axis.size() == ts.writer.compute()->axis.size() &&
         Extent(ts.writer.compute()->axis[1]) > 1 && ReusedAlong(ts.accumulator, 1);
}

bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// The largest power of two below `n` (n > 1).
int64_t PowerOfTwoBelow(int64_t n) {
  int64_t p = 1;
  while (p * 2 < n) p *= 2;
  return p;
}

// Register rows of a tile along an axis of `extent`: powers of two, 6 and 12 (with 2 to 4
// vectors they fill 24 of the 32 vector registers of AVX-512), and the divisors of the extent
// (56 image rows split into 7 or 14 with no tail), up to kMaxRowTile.
std::vector<int64_t> RowTiles(int64_t extent) {
  std::vector<int64_t> rows;
  for (int64_t r = 1; r <= kMaxRowTile; ++r) {
    if (IsPowerOfTwo(r) || r == 6 || r == 12 || extent % r == 0) rows.push_back(r);
  }
  return rows;
}

// The axis, other than the last, that alone indexes the innermost dimension of what an
// elementwise `writer` copies, when its body is one load that does not read its own last axis
// there (a copy out of a blocked layout) and the axis's extent divides by kTransposeBlock.
std::optional<int> TransposeAxis(const Tensor& writer) {
  const te::ComputeOpNode* c = writer.compute();
  const auto* load = c->body.as<ir::LoadNode>();
  if (load == nullptr || load->indices.empty()) return std::nullopt;
  const ir::Expr& innermost = load->indices.back();
  std::optional<int> found;
  for (int d = 0; d < static_cast<int>(c->axis.size()); ++d) {
    const ir::VarNode* v = c->axis[d]->var.get();
    if (!ir::UsesVar(innermost, [&](const ir::VarNode* u) { return u == v; })) continue;
    if (found.has_value() || d + 1 == static_cast<int>(c->axis.size())) return std::nullopt;
    found = d;
  }
  if (!found.has_value() || Extent(c->axis[*found]) % kTransposeBlock != 0) return std::nullopt;
  return found;
}

// Vector tiles of a contiguous axis of `extent`: powers of two up to kMaxVectorTile (a tail is
// peeled), and the whole axis where it is a power of two plus a smaller one, a multiple of 8 up
// to kMaxVectorTile (24 = 16 + 8, 40, 48). A block of 24 output channels then runs as a zmm and
// a ymm per point fed by one broadcast of the input, where a tile of 16 leaves a tail of 8 that
// loops over the input again (see VectorizeInPieces).
std::vector<int64_t> VectorTiles(int64_t extent) {
  std::vector<int64_t> tiles;
  for (int64_t t = 1; t <= std::min(extent, kMaxVectorTile); t *= 2) tiles.push_back(t);
  if (extent <= kMaxVectorTile && extent % 8 == 0 && !IsPowerOfTwo(extent) &&
      IsPowerOfTwo(extent - PowerOfTwoBelow(extent))) {
    tiles.push_back(extent);
  }
  return tiles;
}

// Vectorizes `iv` (of `lanes` iterations). A count that is not a power of two is split at the
// largest power of two below it, the outer loop unrolled, so the pieces are vectors of legal
// widths (24 lanes: 16 and, the guarded rest peeled by loop partitioning, 8). LLVM 16 turns one
// <24 x float> accumulator carried around a loop into element-wise inserts through the stack
// (1,652 shuffles around 56 FMAs, measured).
absl::Status VectorizeInPieces(schedule::Stage& st, const IterVar& iv, int64_t lanes) {
  if (IsPowerOfTwo(lanes)) return st.Vectorize(iv);
  absl::StatusOr<std::pair<IterVar, IterVar>> split = st.Split(iv, PowerOfTwoBelow(lanes));
  if (!split.ok()) return split.status();
  if (absl::Status s = st.Unroll(split->first); !s.ok()) return s;
  return st.Vectorize(split->second);
}

// Applies one tiled stage of the sketch (see generated_space.h for the knobs). Axis
// `fixed_axis`, when given, is split by `fixed_rows` instead of by its knob: under row fusion
// the stage spans that many rows of it, all of them in the register tile. With `batch_out`, a
// leading batch axis (untiled, it indexes everything the reduction reads) stays a loop of its
// own around the fused one, and `batch_out` receives it (left undefined where the outer loops
// do not start with it), so that a copy packed per batch can be computed in it. The register
// tile runs its rows in RegisterRowOrder for `registers` (register_tile.h).
absl::Status ApplyTiled(const TiledStage& ts, const Config& config,
                        const VectorRegisterFile& registers, bool parallel, schedule::Schedule* sch,
                        int fixed_axis = -1, int64_t fixed_rows = 0, IterVar* fused_out = nullptr,
                        const std::vector<int>& border_axes = {}, IterVar* batch_out = nullptr) {
  Tensor writer = ts.writer;
  Tensor acc = ts.accumulator;
  if (ts.cache_write) {
    absl::StatusOr<Tensor> local = sch->CacheWrite(writer, "local");
    if (!local.ok()) return local.status();
    acc = *local;
  }
  absl::StatusOr<schedule::Stage*> ws = sch->StageOf(writer);
  if (!ws.ok()) return ws.status();
  schedule::Stage& w = **ws;
  const int rank = static_cast<int>(w.root_axes().size());
  std::vector<IterVar> outer, inner;
  int64_t row_points = 1;
  // The outer loops kept out of the fused loop: those of tiles that leave a tail, and those
  // of `border_axes` (a padding inlined into the reduction: its bounds are partitioned on them).
  std::vector<IterVar> tails;
  std::vector<IterVar> borders;        // The outer loops of `border_axes`.
  int64_t vector_lanes = 0;            // The last axis's vector tile from its knob (0: none).
  std::vector<int64_t> tile(rank, 1);  // Each axis's inner tile: the register tile.
  for (int d = 0; d < rank; ++d) {
    IterVar axis = w.axis(d);
    const std::string knob = KnobName(writer, absl::StrCat("tile_", axis->name()));
    absl::StatusOr<std::vector<int64_t>> f = std::vector<int64_t>{-1, fixed_rows};
    const bool border = absl::c_linear_search(border_axes, d);
    if (d != fixed_axis) {
      if (config.space->KnobIndex(knob) < 0) {
        outer.push_back(axis);
        if (border) borders.push_back(axis);
        continue;
      }
      f = config.Split(knob);
      if (!f.ok()) return f.status();
    }
    absl::StatusOr<std::pair<IterVar, IterVar>> split = w.Split(axis, (*f)[1]);
    if (!split.ok()) return split.status();
    outer.push_back(split->first);
    inner.push_back(split->second);
    tile[d] = (*f)[1];
    if (d + 1 < rank) row_points *= (*f)[1];
    if (d + 1 == rank && d != fixed_axis) vector_lanes = (*f)[1];
    if (Extent(axis) % (*f)[1] != 0) tails.push_back(split->first);
    if (border) borders.push_back(split->first);
  }
  for (const IterVar& b : borders) {
    if (!absl::c_linear_search(tails, b)) tails.push_back(b);
    if (absl::Status s = w.Pragma(b, schedule::kPartitionSelectsPragma, 1); !s.ok()) return s;
  }
  // A plain copy out of a blocked layout (an output unblocked from NCHW16c: Y[n, f, y, x] =
  // Yp[n, f / 16, y, x, f % 16]) reads its vector axis with a stride: the axis that indexes
  // the source's innermost dimension is unrolled by 16 next to the vector, and the code
  // generator turns the 16 strided copies into contiguous loads and a transpose in registers.
  if (!acc.defined() && inner.size() == 1) {
    if (std::optional<int> d = TransposeAxis(writer); d.has_value()) {
      absl::StatusOr<std::vector<int64_t>> vec =
          config.Split(KnobName(writer, absl::StrCat("tile_", w.axis(rank - 1)->name())));
      if (!vec.ok()) return vec.status();
      if ((*vec)[1] % kTransposeBlock == 0) {
        absl::StatusOr<std::pair<IterVar, IterVar>> split = w.Split(w.axis(*d), kTransposeBlock);
        if (!split.ok()) return split.status();
        std::replace(outer.begin(), outer.end(), w.axis(*d), split->first);
        inner.insert(inner.begin(), split->second);
        if (absl::Status s = w.Unroll(split->second); !s.ok()) return s;
      }
    }
  }
  // The order knob puts the vector axis's tiles outside the rows' (a dense layer then sweeps
  // the rows under one block of packed weights, which stays in cache), or (kOrderSweep) the
  // second axis's tiles inside every other outer loop (SweepsSecondAxis).
  if (const std::string knob = KnobName(writer, "order");
      config.space->KnobIndex(knob) >= 0 && outer.size() >= 2) {
    absl::StatusOr<int64_t> swap = config.Other(knob);
    if (!swap.ok()) return swap.status();
    if (*swap == 1) std::swap(outer[outer.size() - 1], outer[outer.size() - 2]);
    if (*swap == kOrderSweep) std::rotate(outer.begin() + 1, outer.begin() + 2, outer.end());
  }
  // The outer loops of tiles with a tail go innermost (in their order) and stay out of the
  // fused loop: fused, their guards would depend on the fused index in every iteration; alone,
  // loop partitioning peels their last iteration and the main body is guard-free (guarded
  // register rows would otherwise run as scalar loops). So do the loops of border axes, whose
  // first and last tiles loop partitioning peels off the same way.
  auto has_tail = [&](const IterVar& iv) {
    return std::find(tails.begin(), tails.end(), iv) != tails.end();
  };
  std::stable_partition(outer.begin(), outer.end(),
                        [&](const IterVar& iv) { return !has_tail(iv); });
  std::vector<IterVar> order = outer;
  order.insert(order.end(), inner.begin(), inner.end());
  if (absl::Status s = w.Reorder(order); !s.ok()) return s;
  // A batch loop kept around the fused one: the untiled axis 0, still first, with other outer
  // loops to fuse.
  const size_t first =
      batch_out != nullptr && outer.size() >= 2 && outer[0] == w.root_axes()[0] ? 1 : 0;
  if (first == 1) *batch_out = outer[0];
  // Everything but the tail loops (and a kept batch loop) is fused into one parallel loop (all
  // of it when every outer loop has a tail: the first one then runs in parallel).
  size_t to_fuse = first;
  while (to_fuse < outer.size() && !has_tail(outer[to_fuse])) ++to_fuse;
  if (to_fuse == first) to_fuse = first + 1;
  IterVar fused = outer[first];
  for (size_t d = first + 1; d < to_fuse; ++d) {
    absl::StatusOr<IterVar> f = w.Fuse(fused, outer[d]);
    if (!f.ok()) return f.status();
    fused = *f;
  }
  if (parallel) {
    if (absl::Status s = w.Parallel(fused); !s.ok()) return s;
  }
  if (fused_out != nullptr) *fused_out = fused;
  const IterVar attach = outer.back() == outer[to_fuse - 1] ? fused : outer.back();
  if (!inner.empty()) {
    if (absl::Status s = vector_lanes > 0 ? VectorizeInPieces(w, inner.back(), vector_lanes)
                                          : w.Vectorize(inner.back());
        !s.ok()) {
      return s;
    }
  }
  if (!acc.defined()) return absl::OkStatus();

  absl::StatusOr<schedule::Stage*> ls = sch->StageOf(acc);
  if (!ls.ok()) return ls.status();
  schedule::Stage& l = **ls;
  if (absl::Status s = l.ComputeAt(w, attach); !s.ok()) return s;
  std::vector<IterVar> r_outer, r_inner;
  int64_t reduce_points = 1;
  for (int r = 0; r < static_cast<int>(l.reduce_axes().size()); ++r) {
    IterVar axis = l.reduce_axis(r);
    absl::StatusOr<std::vector<int64_t>> f = config.Split(ReduceKnobName(writer, axis));
    if (!f.ok()) return f.status();
    absl::StatusOr<std::pair<IterVar, IterVar>> split = l.Split(axis, (*f)[1]);
    if (!split.ok()) return split.status();
    r_outer.push_back(split->first);
    r_inner.push_back(split->second);
    reduce_points *= (*f)[1];
  }
  std::vector<IterVar> local_order = r_outer;
  local_order.insert(local_order.end(), r_inner.begin(), r_inner.end());
  const int local_rank = static_cast<int>(l.root_axes().size());
  if (local_rank == rank) {
    for (int d : RegisterRowOrder(tile, ReadAxisMasks(ts.accumulator, registers),
                                  acc.dtype().bytes(), registers)) {
      local_order.push_back(l.axis(d));
    }
    local_order.push_back(l.axis(local_rank - 1));
  } else {
    for (int d = 0; d < local_rank; ++d) local_order.push_back(l.axis(d));
  }
  if (absl::Status s = l.Reorder(local_order); !s.ok()) return s;
  if (!borders.empty()) {
    // Inside the border tiles the padding's bounds also split the reduction and the register
    // rows, down to pieces where each tap is in the image or in the padding for every
    // accumulator: a tap in the padding adds zero and is dropped (oneDNN skips them too).
    for (int d = 0; d + 1 < static_cast<int>(local_order.size()); ++d) {
      if (absl::Status s = l.Pragma(local_order[d], schedule::kPartitionSelectsPragma, 1);
          !s.ok()) {
        return s;
      }
    }
  }
  if (absl::Status s = vector_lanes > 0 ? VectorizeInPieces(l, l.axis(local_rank - 1), vector_lanes)
                                        : l.Vectorize(l.axis(local_rank - 1));
      !s.ok()) {
    return s;
  }
  const bool unroll_rows = row_points <= kMaxUnrolledRows;
  if (unroll_rows) {
    for (int d = 0; d + 1 < local_rank; ++d) {
      if (absl::Status s = l.Unroll(l.axis(d)); !s.ok()) return s;
    }
  }
  absl::StatusOr<int64_t> unroll = config.Other(KnobName(writer, "unroll"));
  if (!unroll.ok()) return unroll.status();
  // The reduction is unrolled only around an unrolled register tile: around rows left as
  // loops (accumulators in memory anyway) each unrolled point copies the whole row nest, and
  // LLVM took 5 to 60 s per such kernel (ResNet-18's 3x3 layer at 56x56: 192 points around
  // 224 rows, a 17k-node kernel, 61.7 s; kernel_probe --random 8 --seed 3), against 0.1 s.
  if (*unroll != 0 && unroll_rows && reduce_points * row_points <= kMaxUnrolledPoints) {
    for (const IterVar& iv : r_inner) {
      if (absl::Status s = l.Unroll(iv); !s.ok()) return s;
    }
  }
  // Software prefetch of every global buffer the reduction reads (an input, a weight or its
  // packed copy) at the innermost outer reduction loop, where a config asks for it.
  absl::StatusOr<int64_t> distance =
      config.space->KnobIndex(kPrefetchKnob) >= 0 ? config.Other(kPrefetchKnob) : 0;
  if (!distance.ok()) return distance.status();
  if (*distance > 0 && !r_outer.empty()) {
    for (const te::OperationNode* in : te::InputsOf(l.body())) {
      const schedule::Stage* st = sch->Find(in);
      if (st == nullptr || st->scope() != "global" || FitsL1(Tensor(st->op_ptr()))) continue;
      if (absl::Status s = l.Prefetch(Tensor(st->op_ptr()), r_outer.back(), *distance); !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

// The rows of a stage's output: the product of its axes but the last.
int64_t Rows(const te::ComputeOpNode* c) {
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < c->axis.size(); ++d) rows *= Extent(c->axis[d]);
  return rows;
}

// The reductions of the program that can be split along their contiguous axis (see
// split_reduction.h), with their lanes, producers first: only those whose own last axis
// reuses nothing when vectorized (a row sum, a row max) or that have a single row (a GEMV).
// Elsewhere a register tile along that axis with a packed input is the better schedule, and
// the split variant would only dilute the space.
std::vector<std::pair<Tensor, int64_t>> SplitCandidates(const std::vector<Tensor>& args) {
  std::vector<std::pair<Tensor, int64_t>> out;
  for (const Tensor& t : ComputeStages(args.back())) {
    const int64_t lanes = SplitReductionLanes(t);
    if (lanes == 0) continue;
    const te::ComputeOpNode* c = t.compute();
    if (Rows(c) == 1 || !ReusedAlong(t, static_cast<int>(c->axis.size()) - 1)) {
      out.push_back({t, lanes});
    }
  }
  return out;
}

// Whether a stage of the program is a reduction with a single row of outputs (all but its last
// axis of extent 1: a GEMV, a batch-1 dense layer), which reads each element of its other
// operand once: a stream from memory, where the prefetch knob is offered. Elsewhere each element
// loaded is reused across a register tile, and the hardware prefetchers keep up.
bool StreamsASingleRow(const std::vector<Tensor>& args) {
  for (const Tensor& t : ComputeStages(args.back())) {
    const te::ComputeOpNode* c = t.compute();
    if (!c->reduce_axis.empty() && !c->axis.empty() && Rows(c) == 1) return true;
  }
  return false;
}

// The program with `candidates` split (all of them, or those whose `rfactor` knob is on when
// `config` is given). `lane_sums` receives the stages that sum the lanes (computed at the top
// level: each reads only its partial reduction, a few values per output).
absl::StatusOr<std::vector<Tensor>> SplitReductions(
    const std::vector<Tensor>& args, const std::vector<std::pair<Tensor, int64_t>>& candidates,
    const Config* config, std::vector<Tensor>* lane_sums) {
  std::vector<Tensor> current = args;
  std::vector<std::string> split;
  for (const auto& [reduction, lanes] : candidates) {
    if (config != nullptr) {
      absl::StatusOr<int64_t> on = config->Other(KnobName(reduction, "rfactor"));
      if (!on.ok()) return on.status();
      if (*on == 0) continue;
    }
    // The reduction as it is in the current (possibly already rebuilt) program, by name.
    Tensor now;
    for (const Tensor& t : ComputeStages(current.back())) {
      if (t.name() == reduction.name()) now = t;
    }
    absl::StatusOr<std::vector<Tensor>> next = SplitReduction(current, now, lanes);
    if (!next.ok()) return next.status();
    current = *std::move(next);
    split.push_back(reduction.name());
  }
  for (const Tensor& t : ComputeStages(current.back())) {
    if (std::find(split.begin(), split.end(), t.name()) != split.end()) lane_sums->push_back(t);
  }
  return current;
}

// The program that packs a weight ahead of time, on all cores, with contiguous stores.
absl::StatusOr<Prepack> SchedulePrepack(const AheadPack& ahead) {
  Prepack p;
  p.arg_index = ahead.arg_index;
  p.args = ahead.pack;
  absl::StatusOr<std::unique_ptr<schedule::Schedule>> sch =
      schedule::Schedule::Create({ahead.pack.back()});
  if (!sch.ok()) return sch.status();
  absl::StatusOr<schedule::Stage*> st = (*sch)->StageOf(ahead.pack.back());
  if (!st.ok()) return st.status();
  const int rank = static_cast<int>((*st)->root_axes().size());
  if (absl::Status s = (*st)->Parallel((*st)->axis(0)); !s.ok()) return s;
  // A hoisted reduction (hoist_weights.h) keeps its reduction loops innermost.
  if (ahead.pack.back().compute()->reduce_axis.empty()) {
    if (absl::Status s = (*st)->Vectorize((*st)->axis(rank - 1)); !s.ok()) return s;
  }
  p.sch = *std::move(sch);
  return p;
}

// Schedules a stage computed at the top level: its outer loop in parallel, and its contiguous
// axis in vectors. A packed copy's innermost dimension is the vector block, stored whole; an
// elementwise stage (a padding, an exponential that a reduction reads) runs that axis in vectors
// of up to kRootVectorLanes (a power of two; a tail is peeled by loop partitioning). When that
// axis is shorter than a register (an RGB image's padding, 3 floats a pixel; a uint8 padding,
// 16 bytes) it is fused with the axis above it: a row of pixels is one run in registers,
// partitioned on the padding's bounds so that its middle loads and stores whole registers
// without them (was a branch and a narrow vector per pixel); not in a block of rows
// (`fuse_short_axis` false: ApplyRowFusion), whose row axis must stay. The vectorizer
// keeps a loop scalar where lanes would need guards (a padding's select around a load along the
// vector axis), so this is always safe. The lane sum of a split reduction (its only reduce axis,
// the lanes) is one horizontal operation per output.
absl::Status ScheduleRootStage(const Tensor& t, bool is_packed, bool parallel, bool fuse_short_axis,
                               schedule::Stage* st) {
  const int rank = static_cast<int>(st->root_axes().size());
  IterVar outer = st->axis(0);  // The loop run in parallel.
  IterVar vector_axis;
  if (is_packed) {
    vector_axis = st->axis(rank - 1);
    // The source's contiguous axis (the copy's second-to-last) unrolled by 16 next to the
    // vector block: the code generator turns 16 such strided copies into contiguous loads and
    // an in-register transpose (a 16 x 16 block at a time) instead of loading lane by lane.
    if (rank >= 2 && Extent(st->axis(rank - 2)) % kTransposeBlock == 0 &&
        Extent(vector_axis) % kTransposeBlock == 0) {
      absl::StatusOr<std::pair<IterVar, IterVar>> split =
          st->Split(st->axis(rank - 2), kTransposeBlock);
      if (!split.ok()) return split.status();
      if (absl::Status s = st->Unroll(split->second); !s.ok()) return s;
    }
  } else if (t.compute()->reduce_axis.empty()) {
    const IterVar last = st->axis(rank - 1);
    const int64_t extent = Extent(last);
    // The widest power of two up to kRootVectorLanes that fits the axis (a tail is peeled).
    int64_t lanes = 1;
    while (lanes * 2 <= std::min(extent, kRootVectorLanes)) lanes *= 2;
    // One register's lanes of the stage's element type.
    const int64_t register_lanes = kRegisterBytes / std::max(1, t.dtype().bytes());
    if (fuse_short_axis && rank >= 2 && extent > 1 && extent < register_lanes &&
        Extent(st->axis(rank - 2)) * extent >= register_lanes) {
      // An axis shorter than a register (an RGB image's block of 3 channels, a block of 16
      // bytes) fused with the one above it: a row of pixels is one contiguous run, in whole
      // registers; its padding's bounds are then bounds on the run, and loop partitioning
      // leaves the row's middle without them.
      const bool outer_fused = rank == 2;
      absl::StatusOr<IterVar> run = st->Fuse(st->axis(rank - 2), last);
      if (!run.ok()) return run.status();
      absl::StatusOr<std::pair<IterVar, IterVar>> split = st->Split(*run, register_lanes);
      if (!split.ok()) return split.status();
      // Both loops: the run's registers, then the lanes of the registers at its ends (a pixel
      // of padding and the start of the image in one register), down to whole pixels.
      for (const IterVar& loop : {split->first, split->second}) {
        if (absl::Status s = st->Pragma(loop, schedule::kPartitionSelectsPragma, 1); !s.ok()) {
          return s;
        }
      }
      vector_axis = split->second;
      if (outer_fused) outer = split->first;
    } else if (lanes == extent || (extent > 1 && extent < 4)) {
      // A short axis alone (a vector of 3 channels) is one vector of its extent.
      vector_axis = last;
    } else if (lanes >= 4) {
      absl::StatusOr<std::pair<IterVar, IterVar>> split = st->Split(last, lanes);
      if (!split.ok()) return split.status();
      vector_axis = split->second;
      if (rank == 1) outer = split->first;
    }
  }
  if (!is_packed && t.compute()->reduce_axis.size() == 1) {
    if (absl::Status s = st->VectorizeReduction(st->reduce_axis(0)); !s.ok()) return s;
  }
  if (parallel && outer != vector_axis) {
    if (absl::Status s = st->Parallel(outer); !s.ok()) return s;
  }
  if (vector_axis != nullptr) {
    if (absl::Status s = st->Vectorize(vector_axis); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Schedules the program a block of `rows` rows of axis depth-1 at a time (row_fusion.h): the
// output's leading axes and the blocks are fused into one (parallel) loop, and every stage
// but the inlined ones and the packed copies is computed inside it over the block, readers
// first (compute_at needs them in place). Inside the block a reduction keeps its register
// tile, spanning all the block's rows, and the other stages their top-level schedule.
absl::Status ApplyRowFusion(const Sketch& sketch, const std::vector<Tensor>& packed, int depth,
                            int64_t rows, const Config& config, const VectorRegisterFile& registers,
                            bool parallel, schedule::Schedule* sch) {
  const Tensor output = sketch.tiled.back().writer;
  absl::StatusOr<schedule::Stage*> ys = sch->StageOf(output);
  if (!ys.ok()) return ys.status();
  schedule::Stage& y = **ys;
  const int rank = static_cast<int>(y.root_axes().size());
  std::vector<IterVar> leading;  // Fused with the blocks into one loop.
  for (int d = 0; d + 1 < depth; ++d) leading.push_back(y.axis(d));
  std::vector<IterVar> middle;  // The axes between the blocked one and the vector axis.
  for (int d = depth; d + 1 < rank; ++d) middle.push_back(y.axis(d));
  const IterVar last = y.axis(rank - 1);
  absl::StatusOr<std::pair<IterVar, IterVar>> block = y.Split(y.axis(depth - 1), rows);
  if (!block.ok()) return block.status();
  absl::StatusOr<std::vector<int64_t>> vec =
      config.Split(KnobName(output, absl::StrCat("tile_", last->name())));
  if (!vec.ok()) return vec.status();
  absl::StatusOr<std::pair<IterVar, IterVar>> lanes = y.Split(last, (*vec)[1]);
  if (!lanes.ok()) return lanes.status();
  std::vector<IterVar> loops = leading;
  loops.push_back(block->first);
  loops.push_back(block->second);
  loops.insert(loops.end(), middle.begin(), middle.end());
  loops.push_back(lanes->first);
  loops.push_back(lanes->second);
  if (absl::Status s = y.Reorder(loops); !s.ok()) return s;
  leading.push_back(block->first);
  IterVar fused = leading[0];
  for (size_t d = 1; d < leading.size(); ++d) {
    absl::StatusOr<IterVar> f = y.Fuse(fused, leading[d]);
    if (!f.ok()) return f.status();
    fused = *f;
  }
  if (parallel) {
    if (absl::Status s = y.Parallel(fused); !s.ok()) return s;
  }
  if (absl::Status s = y.Vectorize(lanes->second); !s.ok()) return s;
  const std::vector<Tensor> order = ComputeStages(output);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Tensor& t = *it;
    if (t == output || absl::c_linear_search(sketch.inlined, t) ||
        absl::c_linear_search(packed, t)) {
      continue;
    }
    const auto tiled =
        absl::c_find_if(sketch.tiled, [&](const TiledStage& ts) { return ts.writer == t; });
    if (tiled != sketch.tiled.end()) {
      if (absl::Status s = ApplyTiled(*tiled, config, registers, false, sch, depth - 1, rows);
          !s.ok()) {
        return s;
      }
    }
    absl::StatusOr<schedule::Stage*> st = sch->StageOf(t);
    if (!st.ok()) return st.status();
    if (tiled == sketch.tiled.end()) {
      // Its rows are the block's: no axis is fused across them.
      if (absl::Status s = ScheduleRootStage(t, false, false, false, *st); !s.ok()) return s;
    }
    if (absl::Status s = (*st)->ComputeAt(y, fused); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Knob values of pack_<input>.
constexpr int64_t kPackPerCall = 1;
constexpr int64_t kPackAhead = 2;
// Packed on every call, one batch at a time inside the reduction's batch loop (see
// PacksPerBatch), so that each batch's copy is read back from cache.
constexpr int64_t kPackPerBatch = 3;

// The knob value of `<stage>.at` that inlines a padding into its reader (DefineRootKnobs).
constexpr int64_t kInlinePadding = 2;

// Whether the reduction of `ts` has a batch: a leading axis of more than one point that is not
// tiled (it indexes everything the reduction reads, ReusedAlong) above others, so that a copy
// of an input it reads can be packed one batch at a time (kPackPerBatch).
bool PacksPerBatch(const TiledStage& ts) {
  if (!ts.accumulator.defined()) return false;
  const te::ComputeOpNode* c = ts.accumulator.compute();
  return c->axis.size() >= 2 && Extent(c->axis[0]) > 1 && !ReusedAlong(ts.accumulator, 0);
}

// The program with each input packed whose `pack_` knob is on (see pack_input.h); the block is
// the vector tile of the reduction's last axis. `packed` receives the copies packed in the
// kernel, `per_batch` those of them packed one batch at a time (kPackPerBatch), `prepacks`
// those packed ahead of time (scheduled: parallel, vectorized).
absl::StatusOr<std::vector<Tensor>> PackInputs(const std::vector<Tensor>& args,
                                               const Config& config, std::vector<Tensor>* packed,
                                               std::vector<Tensor>* per_batch,
                                               std::vector<Prepack>* prepacks) {
  absl::StatusOr<Sketch> sketch = MakeSketch(args);
  if (!sketch.ok()) return sketch.status();
  std::vector<Tensor> current = args;
  std::vector<std::string> packed_names, per_batch_names;
  for (const TiledStage& ts : sketch->tiled) {
    if (!ts.accumulator.defined()) continue;
    std::optional<PackCandidate> pack = FindPackCandidate(ts.accumulator);
    if (!pack.has_value()) continue;
    absl::StatusOr<int64_t> on =
        config.Other(KnobName(ts.writer, absl::StrCat("pack_", pack->input.name())));
    if (!on.ok()) return on.status();
    if (*on == 0) continue;
    const te::ComputeOpNode* w = ts.writer.compute();
    absl::StatusOr<std::vector<int64_t>> tile =
        config.Split(KnobName(ts.writer, absl::StrCat("tile_", w->axis.back()->name())));
    if (!tile.ok()) return tile.status();
    // The reduction as it is in the current (possibly already rebuilt) program, by name.
    Tensor reduction;
    for (const Tensor& t : ComputeStages(current.back())) {
      if (t.name() == ts.accumulator.name()) reduction = t;
    }
    if (*on == kPackAhead) {
      absl::StatusOr<AheadPack> ahead =
          PackInputAhead(current, reduction, pack->input, pack->dim, (*tile)[1]);
      if (!ahead.ok()) return ahead.status();
      absl::StatusOr<Prepack> prepack = SchedulePrepack(*ahead);
      if (!prepack.ok()) return prepack.status();
      prepacks->push_back(*std::move(prepack));
      current = std::move(ahead->program);
      continue;
    }
    absl::StatusOr<std::vector<Tensor>> next =
        PackInput(current, reduction, pack->input, pack->dim, (*tile)[1]);
    if (!next.ok()) return next.status();
    current = *std::move(next);
    packed_names.push_back(pack->input.name() + "_packed");
    if (*on == kPackPerBatch) per_batch_names.push_back(packed_names.back());
  }
  for (const Tensor& t : ComputeStages(current.back())) {
    if (std::find(packed_names.begin(), packed_names.end(), t.name()) != packed_names.end()) {
      packed->push_back(t);
    }
    if (absl::c_linear_search(per_batch_names, t.name())) per_batch->push_back(t);
  }
  return current;
}

// The tiled stage whose reduction is the only reader of `t`, a stage computed at the top
// level: a padding that feeds one convolution.
const TiledStage* SoleTiledReader(const Sketch& sketch, const Tensor& t) {
  const TiledStage* found = nullptr;
  for (const TiledStage& ts : sketch.tiled) {
    if (absl::c_linear_search(TensorsRead(ts.writer.compute()->body), t) &&
        ts.writer != ts.accumulator) {
      return nullptr;  // Read by an elementwise writer, outside the reduction's tile.
    }
    if (!ts.accumulator.defined() ||
        !absl::c_linear_search(TensorsRead(ts.accumulator.compute()->body), t)) {
      continue;
    }
    if (found != nullptr) return nullptr;
    found = &ts;
  }
  for (const Tensor& r : sketch.root) {
    if (r != t && absl::c_linear_search(TensorsRead(r.compute()->body), t)) return nullptr;
  }
  return found;
}

// The iterations of a computed stage's loop nest: its axes' extents times its reduction's.
double Iterations(const Tensor& t) {
  double n = 1;
  for (const IterVar& iv : t.compute()->axis) n *= static_cast<double>(Extent(iv));
  for (const IterVar& iv : t.compute()->reduce_axis) n *= static_cast<double>(Extent(iv));
  return n;
}

// Whether `reader`'s reduction holds at least half of the iterations of the sketch's tiled
// stages: where the taps that an inlined padding drops are a share of the program's work (a
// convolution, a pooling) and not of a light transform before the work (a Winograd program's
// input transform, 1% of its iterations, where inlining measured within 1% of `at` = 1 and
// grew its space by half).
bool HoldsMostOfTheWork(const Sketch& sketch, const TiledStage& reader) {
  double total = 0;
  for (const TiledStage& ts : sketch.tiled) {
    total += Iterations(ts.accumulator.defined() ? ts.accumulator : ts.writer);
  }
  return 2 * Iterations(reader.accumulator) >= total;
}

// Defines the knobs of one sketch's tiled stages that `space` does not have yet (the space is
// the union of the knobs of every variant of the program; see DefineGeneratedSpace).
// `<stage>.at`: an elementwise stage computed at the top level because one reduction reads it
// (a padding) is computed over the whole tensor first (0), or inside the reduction's parallel
// tile loop (1), just the region that tile reads, so the copy stays in cache; and where
// `inline_padding`, the stage is a padding (padding_axes.h) and its reader holds most of the
// work (HoldsMostOfTheWork), inlined into the reduction (kInlinePadding), its bounds
// partitioned away from every tile but the border ones, where the taps that fall in the padding
// are dropped.
void DefineRootKnobs(const Sketch& sketch, ConfigSpace* space, bool inline_padding) {
  for (const Tensor& t : sketch.root) {
    const TiledStage* reader = SoleTiledReader(sketch, t);
    if (t.compute()->reduce_axis.empty() && reader != nullptr) {
      const std::string name = KnobName(t, "at");
      if (space->KnobIndex(name) >= 0) continue;
      if (inline_padding && !PaddedAxes(reader->accumulator, t).empty() &&
          HoldsMostOfTheWork(sketch, *reader)) {
        space->DefineOther(name, {0, 1, kInlinePadding});
      } else {
        space->DefineOther(name, {0, 1});
      }
    }
  }
}

void DefineSketchKnobs(const Sketch& sketch, const std::vector<Tensor>& weights,
                       const VectorRegisterFile& registers, ConfigSpace* space) {
  DefineRootKnobs(sketch, space, /*inline_padding=*/true);
  auto define_split = [&](const std::string& name, int64_t extent, SplitPolicy policy,
                          int64_t max) {
    if (space->KnobIndex(name) < 0) space->DefineSplit(name, extent, 2, policy, max);
  };
  // One tile, the whole extent.
  auto whole = [&](const std::string& name, int64_t extent) {
    if (space->KnobIndex(name) < 0) {
      space->DefineSplit(name, extent, 2, SplitPolicy::kCandidates, 0, {extent});
    }
  };
  for (const TiledStage& ts : sketch.tiled) {
    const te::ComputeOpNode* w = ts.writer.compute();
    const int rank = static_cast<int>(w->axis.size());
    // The axes that index a table (table_axes.h) are tiled whole and the tile unrolled: one
    // choice each, so they add nothing to the search.
    const absl::flat_hash_set<const ir::VarNode*> table_axes =
        ts.accumulator.defined() ? TableAxes(ts.accumulator)
                                 : absl::flat_hash_set<const ir::VarNode*>{};
    const te::ComputeOpNode* acc = ts.accumulator.defined() ? ts.accumulator.compute() : nullptr;
    auto indexes_table = [&](int d) {
      return acc != nullptr && acc->axis.size() == w->axis.size() &&
             table_axes.contains(acc->axis[d]->var.get());
    };
    for (int d = 0; d < rank; ++d) {
      const bool last = d + 1 == rank;
      if (!last && !ts.accumulator.defined()) continue;  // Only the vector axis is tiled.
      // Rows of a register tile pay only where a value loaded once serves several of them:
      // an axis that indexes everything the reduction reads (a batch) stays an outer loop.
      if (!last && !ReusedAlong(ts.accumulator, d)) continue;
      // The vector axis and the register rows take any power of two (a guarded tail, peeled
      // by loop partitioning); outer axes only divisors, so at most two axes have tails and
      // the partitioned code stays small for LLVM.
      const std::string name = KnobName(ts.writer, absl::StrCat("tile_", w->axis[d]->name()));
      const int64_t extent = Extent(w->axis[d]);
      if (last && extent <= kWholeVectorAxis && IsPowerOfTwo(extent)) {
        // A contiguous axis that fits one vector register (split lanes, a channel block) is
        // vectorized whole.
        whole(name, extent);
      } else if (last) {
        if (space->KnobIndex(name) < 0) {
          space->DefineSplit(name, extent, 2, SplitPolicy::kCandidates, 0, VectorTiles(extent));
        }
      } else if (indexes_table(d)) {
        whole(name, extent);
      } else if (d + 2 == rank) {
        // Register rows (RowTiles). A tail's loop is peeled (see ApplyTiled).
        if (space->KnobIndex(name) < 0) {
          space->DefineSplit(name, extent, 2, SplitPolicy::kCandidates, 0, RowTiles(extent));
        }
      } else {
        define_split(name, extent, SplitPolicy::kFactors, kMaxOuterTile);
      }
    }
    if (!ts.accumulator.defined()) continue;
    if (std::optional<PackCandidate> pack = FindPackCandidate(ts.accumulator)) {
      const std::string name = KnobName(ts.writer, absl::StrCat("pack_", pack->input.name()));
      if (space->KnobIndex(name) < 0) {
        std::vector<int64_t> values = {0, kPackPerCall};
        if (absl::c_linear_search(weights, pack->input)) values.push_back(kPackAhead);
        if (PacksPerBatch(ts)) values.push_back(kPackPerBatch);
        space->DefineOther(name, values);
      }
    }
    for (const IterVar& r : ts.accumulator.compute()->reduce_axis) {
      if (table_axes.contains(r->var.get())) {
        whole(ReduceKnobName(ts.writer, r), Extent(r));
      } else {
        define_split(ReduceKnobName(ts.writer, r), Extent(r), SplitPolicy::kFactors,
                     kMaxReduceTile);
      }
    }
    const std::string unroll = KnobName(ts.writer, "unroll");
    if (space->KnobIndex(unroll) < 0) {
      space->DefineOther(unroll,
                         table_axes.empty() ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{1});
    }
    const std::string order = KnobName(ts.writer, "order");
    if (rank >= 2 && space->KnobIndex(order) < 0) {
      space->DefineOther(order, SweepsSecondAxis(ts) ? std::vector<int64_t>{0, 1, kOrderSweep}
                                                     : std::vector<int64_t>{0, 1});
    }
    AddRegisterTileConstraint(ts, registers, space);
  }
}

// The program the CPU space is defined on and scheduled: guards that always hold dropped
// (drop_guards.h), stages computed from a weight alone hoisted ahead of the calls
// (hoist_weights.h).
absl::StatusOr<HoistedProgram> PrepareProgram(const std::vector<Tensor>& args,
                                              const std::vector<Tensor>& weights) {
  absl::StatusOr<std::vector<Tensor>> unguarded = DropProvenGuards(args);
  if (!unguarded.ok()) return unguarded.status();
  return HoistWeightStages(*unguarded, weights);
}

// The AMX rule's space (amx_tiling.h): the sketch's top-level stages and the tiles.
void DefineAmxSpace(const Sketch& sketch, const AmxTiling& amx, ConfigSpace* space) {
  DefineRootKnobs(sketch, space, /*inline_padding=*/false);
  DefineAmxTilingKnobs(amx, space);
  space->DefineOther("parallel", {1, 0});
}

// Whether the compiler accepts the AMX rule's nests for the program (codegen/amx_nest.h checks
// what the rule does not: strides and layouts), at the first and the last point of its space.
absl::Status CheckAmxNests(const std::vector<Tensor>& all_args, const codegen::Target& target,
                           const std::vector<Tensor>& weights, const Sketch& sketch,
                           const AmxTiling& amx) {
  ConfigSpace probe;
  DefineAmxSpace(sketch, amx, &probe);
  for (const int64_t index : {int64_t{0}, probe.size() - 1}) {
    absl::StatusOr<Config> config = probe.Get(index);
    if (!config.ok()) return config.status();
    absl::StatusOr<Instance> inst = ApplyGeneratedSchedule(all_args, target, *config, weights);
    if (!inst.ok()) return inst.status();
    absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*inst->sch, inst->args, "amx_probe");
    if (!f.ok()) return f.status();
    const std::vector<const ir::ForNode*> loops = codegen::FindAmxLoops(f->body);
    if (loops.empty()) return absl::InvalidArgumentError("no AMX nest after lowering");
    for (const ir::ForNode* loop : loops) {
      if (absl::StatusOr<codegen::AmxNest> nest = codegen::MatchAmxNest(loop); !nest.ok()) {
        return nest.status();
      }
    }
  }
  return absl::OkStatus();
}

// Computes each of `stages` at `loop` of `reader`'s stage.
absl::Status ComputeEachAt(const std::vector<Tensor>& stages, const Tensor& reader,
                           const IterVar& loop, schedule::Schedule* sch) {
  absl::StatusOr<schedule::Stage*> rs = sch->StageOf(reader);
  if (!rs.ok()) return rs.status();
  for (const Tensor& t : stages) {
    absl::StatusOr<schedule::Stage*> st = sch->StageOf(t);
    if (!st.ok()) return st.status();
    if (absl::Status s = (*st)->ComputeAt(**rs, loop); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DefineGeneratedSpace(const std::vector<te::Tensor>& all_args,
                                  const codegen::Target& target, ConfigSpace* space,
                                  const std::vector<te::Tensor>& weights) {
  if (target.kind == codegen::Target::Kind::kCUDA) {
    return DefineGpuGeneratedSpace(all_args, space);
  }
  absl::StatusOr<HoistedProgram> hoisted = PrepareProgram(all_args, weights);
  if (!hoisted.ok()) return hoisted.status();
  const std::vector<Tensor>& args = hoisted->program;
  absl::StatusOr<Sketch> sketch = MakeSketch(args);
  if (!sketch.ok()) return sketch.status();
  // A program the AMX rule matches gets its space alone: on the tiles it beats the vector
  // rules' best several times over (README, "int8 on AMX"). A target without amx-int8
  // (-mattr=-amx-int8) gets the vector rules.
  if (std::optional<AmxTiling> amx = FindAmxTiling(args, target);
      amx.has_value() && CheckAmxNests(all_args, target, weights, *sketch, *amx).ok()) {
    DefineAmxSpace(*sketch, *amx, space);
    return absl::OkStatus();
  }
  const VectorRegisterFile registers = TargetVectorRegisters(target);
  DefineSketchKnobs(*sketch, weights, registers, space);
  // Each split reduction's variant of the program has stages of its own ("<name>_rf", and the
  // lane sum in the reduction's place): the space holds the knobs of the variant with one
  // reduction split, for each, and of the one with all of them split. Knobs that a config's
  // variant does not have are left unused by it.
  const std::vector<std::pair<Tensor, int64_t>> candidates = SplitCandidates(args);
  std::vector<std::vector<std::pair<Tensor, int64_t>>> variants;
  for (const auto& c : candidates) variants.push_back({c});
  if (candidates.size() > 1) variants.push_back(candidates);
  for (const auto& variant : variants) {
    std::vector<Tensor> lane_sums;
    absl::StatusOr<std::vector<Tensor>> split = SplitReductions(args, variant, nullptr, &lane_sums);
    if (!split.ok()) return split.status();
    absl::StatusOr<Sketch> s = MakeSketch(*split, lane_sums);
    if (!s.ok()) return s.status();
    DefineSketchKnobs(*s, weights, registers, space);
  }
  for (const auto& [reduction, lanes] : candidates) {
    space->DefineOther(KnobName(reduction, "rfactor"), {0, lanes});
  }
  if (StreamsASingleRow(args)) space->DefineOther(kPrefetchKnob, {0, kPrefetchBytes});
  // Row fusion (row_fusion.h): 0, each stage over the whole program, or the rows of a block
  // (RowTiles that divide the extent).
  // Only where the output is a plain elementwise writer: a reduction fused into the output's
  // own tile (a bias, an activation) is already computed a tile at a time.
  if (const int depth = RowFusionDepth(args, {});
      depth > 0 && !sketch->tiled.back().accumulator.defined()) {
    std::vector<int64_t> rows = {0};
    const int64_t extent = Extent(args.back().compute()->axis[depth - 1]);
    // Divisors only: a block with a tail would guard every row of every stage inside the
    // fused loop, and the guarded rows run as scalar loops.
    for (int64_t r : RowTiles(extent)) {
      if (extent % r == 0) rows.push_back(r);
    }
    space->DefineOther(KnobName(args.back(), "fuse_rows"), rows);
  }
  space->DefineOther("parallel", {1, 0});
  return absl::OkStatus();
}

absl::StatusOr<Instance> ApplyGeneratedSchedule(const std::vector<te::Tensor>& all_args,
                                                const codegen::Target& target, const Config& config,
                                                const std::vector<te::Tensor>& weights) {
  if (config.space == nullptr)
    return absl::InternalError("generated space: a config with no space");
  if (target.kind == codegen::Target::Kind::kCUDA) {
    return ApplyGpuGeneratedSchedule(all_args, config);
  }
  absl::StatusOr<HoistedProgram> hoisted = PrepareProgram(all_args, weights);
  if (!hoisted.ok()) return hoisted.status();
  const std::vector<Tensor>& args = hoisted->program;
  const VectorRegisterFile registers = TargetVectorRegisters(target);
  std::vector<Prepack> prepacks;
  for (const AheadPack& ahead : hoisted->packs) {
    absl::StatusOr<Prepack> prepack = SchedulePrepack(ahead);
    if (!prepack.ok()) return prepack.status();
    prepacks.push_back(*std::move(prepack));
  }
  // The AMX rule's space has no split reductions and no packed inputs (amx_tiling.h).
  const bool amx = IsAmxTilingSpace(args.back(), *config.space);
  std::vector<Tensor> lane_sums;
  absl::StatusOr<std::vector<Tensor>> split_args =
      amx ? args : SplitReductions(args, SplitCandidates(args), &config, &lane_sums);
  if (!split_args.ok()) return split_args.status();
  std::vector<Tensor> packed;     // The packed copies: the stages the packing added.
  std::vector<Tensor> per_batch;  // Those of them packed one batch at a time.
  absl::StatusOr<std::vector<Tensor>> packed_args =
      amx ? *split_args : PackInputs(*split_args, config, &packed, &per_batch, &prepacks);
  if (!packed_args.ok()) return packed_args.status();
  // Packing rebuilds the stages downstream of the reduction it packs: the lane sums as they
  // are now, by name.
  std::vector<Tensor> at_root = packed;
  for (const Tensor& t : ComputeStages(packed_args->back())) {
    auto same_name = [&](const Tensor& o) { return o.name() == t.name(); };
    if (std::find_if(lane_sums.begin(), lane_sums.end(), same_name) != lane_sums.end()) {
      at_root.push_back(t);
    }
  }
  absl::StatusOr<Sketch> sketch = MakeSketch(*packed_args, at_root);
  if (!sketch.ok()) return sketch.status();
  absl::StatusOr<std::unique_ptr<schedule::Schedule>> sch =
      schedule::Schedule::Create({packed_args->back()});
  if (!sch.ok()) return sch.status();
  absl::StatusOr<int64_t> parallel = config.Other("parallel");
  if (!parallel.ok()) return parallel.status();
  for (const Tensor& t : sketch->inlined) {
    absl::StatusOr<schedule::Stage*> st = (*sch)->StageOf(t);
    if (!st.ok()) return st.status();
    if (absl::Status s = (*st)->ComputeInline(); !s.ok()) return s;
  }
  int64_t fuse_rows = 0;
  if (const std::string knob = KnobName(args.back(), "fuse_rows");
      config.space->KnobIndex(knob) >= 0) {
    absl::StatusOr<int64_t> rows = config.Other(knob);
    if (!rows.ok()) return rows.status();
    fuse_rows = *rows;
  }
  const int depth = fuse_rows > 0 ? RowFusionDepth(*packed_args, packed) : 0;
  // Stages computed inside their reader's tile loop (`<stage>.at` = 1), by reader.
  absl::flat_hash_map<const te::OperationNode*, std::vector<Tensor>> in_tile;
  // The writer axes of paddings inlined into their reader (`<stage>.at` = kInlinePadding).
  absl::flat_hash_map<const te::OperationNode*, std::vector<int>> border_axes;
  // Copies packed one batch at a time, computed inside their reader's batch loop, by reader.
  absl::flat_hash_map<const te::OperationNode*, std::vector<Tensor>> in_batch;
  for (const Tensor& t : sketch->root) {
    const bool is_packed = std::find(packed.begin(), packed.end(), t) != packed.end();
    if (depth > 0 && !is_packed) continue;  // Computed in the block of rows (ApplyRowFusion).
    absl::StatusOr<schedule::Stage*> st = (*sch)->StageOf(t);
    if (!st.ok()) return st.status();
    // Packed per batch: serial inside the batch loop (or, where the reader keeps none, over the
    // whole tensor first, as per call).
    const TiledStage* batch_reader = nullptr;
    if (depth == 0 && absl::c_linear_search(per_batch, t)) {
      batch_reader = SoleTiledReader(*sketch, t);
      if (batch_reader != nullptr) in_batch[batch_reader->writer.op()].push_back(t);
    }
    bool at_tile = false;
    if (const std::string knob = KnobName(t, "at"); config.space->KnobIndex(knob) >= 0) {
      absl::StatusOr<int64_t> at = config.Other(knob);
      if (!at.ok()) return at.status();
      const TiledStage* reader = SoleTiledReader(*sketch, t);
      if (*at == kInlinePadding && reader != nullptr && !is_packed && !amx) {
        std::vector<int> axes = PaddedAxes(reader->accumulator, t);
        if (!axes.empty()) {
          if (absl::Status s = (*st)->ComputeInline(); !s.ok()) return s;
          std::vector<int>& all = border_axes[reader->writer.op()];
          for (int d : axes) {
            if (!absl::c_linear_search(all, d)) all.push_back(d);
          }
          continue;
        }
      }
      at_tile = *at != 0 && reader != nullptr && !is_packed;
      if (at_tile) in_tile[reader->writer.op()].push_back(t);
    }
    // Inside a parallel tile loop, the stage's own loops are serial.
    if (absl::Status s = ScheduleRootStage(
            t, is_packed, *parallel != 0 && !at_tile && batch_reader == nullptr, true, *st);
        !s.ok()) {
      return s;
    }
  }
  if (depth > 0) {
    if (absl::Status s = ApplyRowFusion(*sketch, packed, depth, fuse_rows, config, registers,
                                        *parallel != 0, sch->get());
        !s.ok()) {
      return s;
    }
  } else {
    for (const TiledStage& ts : sketch->tiled) {
      IterVar fused;
      if (amx) {
        absl::StatusOr<IterVar> outer =
            ApplyAmxTiling(ts.writer, config, *parallel != 0, sch->get());
        if (!outer.ok()) return outer.status();
        fused = *outer;
      } else {
        auto borders = border_axes.find(ts.writer.op());
        auto batch_packs = in_batch.find(ts.writer.op());
        IterVar batch;
        if (absl::Status s =
                ApplyTiled(ts, config, registers, *parallel != 0, sch->get(), -1, 0, &fused,
                           borders == border_axes.end() ? std::vector<int>{} : borders->second,
                           batch_packs == in_batch.end() ? nullptr : &batch);
            !s.ok()) {
          return s;
        }
        if (batch != nullptr) {
          if (absl::Status s = ComputeEachAt(batch_packs->second, ts.writer, batch, sch->get());
              !s.ok()) {
            return s;
          }
        }
      }
      auto attached = in_tile.find(ts.writer.op());
      if (attached == in_tile.end()) continue;
      if (absl::Status s = ComputeEachAt(attached->second, ts.writer, fused, sch->get()); !s.ok()) {
        return s;
      }
    }
  }
  return Instance{*std::move(packed_args), *std::move(sch), std::move(prepacks)};
}

}  // namespace tunefarm::tuner
