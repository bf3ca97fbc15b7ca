#include "tuner/generated/gpu_space.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/ir_util.h"
#include "tuner/generated/knob_names.h"
#include "tuner/generated/row_fusion.h"
#include "tuner/generated/sketch.h"
#include "tuner/templates/gpu_common.h"
#include "tuner/templates/template_util.h"

// Plain propagation of a failed schedule step (the generated template wraps it once).
#define TF_GPU_RETURN_IF_ERROR(expr)     \
  do {                                   \
    absl::Status tf_gpu_s = (expr);      \
    if (!tf_gpu_s.ok()) return tf_gpu_s; \
  } while (0)
#define TF_GPU_ASSIGN_OR_RETURN(lhs, expr)                 \
  auto lhs##_or = (expr);                                  \
  if (!lhs##_or.ok()) return std::move(lhs##_or).status(); \
  auto lhs = *std::move(lhs##_or)

namespace tunefarm::tuner {
namespace {

using te::IterVar;
using te::Tensor;

// The thread and register parts of a tiled axis: up to 16 each along the last two axes (a
// 16 x 16 block of threads, a 16 x 16 register tile at most), up to 4 along the axes before
// them (a batch, a convolution's output channels beside its image rows).
constexpr int64_t kMaxInnerTile = 16;
constexpr int64_t kMaxOuterAxisTile = 4;
constexpr int64_t kMaxReduceTile = 16;
const std::vector<int64_t>& ElementwiseThreads() {
  static const auto* v = new std::vector<int64_t>{32, 64, 128, 256, 512, 1024};
  return *v;
}
const std::vector<int64_t>& RowThreads() {
  static const auto* v = new std::vector<int64_t>{32, 64, 128, 256, 512};
  return *v;
}

enum class Shape { kElementwise, kTiled, kRows };

// Which of the three kernels (gpu_space.h) the program is, and its parts.
struct Plan {
  Shape shape = Shape::kElementwise;
  std::vector<Tensor> stages;  // The computed stages but the output, producers first.
  TiledStage tiled;            // kTiled, kElementwise: the output's tiled stage.
  // kTiled: what the accumulator reads that may be staged in shared memory: inputs, and
  // elementwise stages (a padding) that nothing else reads.
  std::vector<Tensor> staged;
  int depth = 0;  // kRows: the leading axes a block computes one row of.
};

bool IsReduction(const Tensor& t) { return !t.compute()->reduce_axis.empty(); }

int64_t Extent(const IterVar& iv) { return *ir::AsConstInt(iv->dom.extent); }

// The stages of `stages` and `output` that read `t`.
int Readers(const Tensor& t, const std::vector<Tensor>& stages, const Tensor& output) {
  int n = 0;
  auto count = [&](const Tensor& s) {
    if (absl::c_linear_search(TensorsRead(s.compute()->body), t)) ++n;
  };
  for (const Tensor& s : stages) count(s);
  count(output);
  return n;
}

absl::StatusOr<Plan> MakePlan(const std::vector<Tensor>& args) {
  absl::StatusOr<Sketch> sketch = MakeSketch(args);
  if (!sketch.ok()) return sketch.status();
  Plan p;
  const Tensor& output = args.back();
  for (const Tensor& t : ComputeStages(output)) {
    if (t != output) p.stages.push_back(t);
  }
  if (sketch->tiled.size() == 1) {
    p.tiled = sketch->tiled[0];
    if (!p.tiled.accumulator.defined()) return p;
    p.shape = Shape::kTiled;
    for (const Tensor& t : TensorsRead(p.tiled.accumulator.compute()->body)) {
      if (t.compute() == nullptr || (!IsReduction(t) && Readers(t, p.stages, output) == 1)) {
        p.staged.push_back(t);
      }
    }
    return p;
  }
  p.depth = RowFusionDepth(args, {});
  if (p.depth > 0) {
    p.shape = Shape::kRows;
    return p;
  }
  std::vector<std::string> names;
  for (const TiledStage& ts : sketch->tiled) names.push_back(ts.writer.name());
  return absl::UnimplementedError(absl::StrCat(
      "a generated GPU schedule is one kernel, and stages ", absl::StrJoin(names, ", "),
      " would each need their own: the reductions of a program must feed only an elementwise "
      "output of their shape (a bias, an activation), or every stage must read its producers "
      "row for row (a softmax, a layer normalization)"));
}

// The knob of tiled axis d of the writer: (block, thread, register).
void DefineTiledKnobs(const TiledStage& ts, ConfigSpace* space) {
  const te::ComputeOpNode* w = ts.writer.compute();
  const int rank = static_cast<int>(w->axis.size());
  for (int d = 0; d < rank; ++d) {
    const int64_t max = d + 2 >= rank ? kMaxInnerTile : kMaxOuterAxisTile;
    space->DefineSplit(KnobName(ts.writer, absl::StrCat("tile_", w->axis[d]->name())),
                       Extent(w->axis[d]), 3, SplitPolicy::kFactors, max);
  }
  for (const IterVar& r : ts.accumulator.compute()->reduce_axis) {
    space->DefineSplit(ReduceKnobName(ts.writer, r), Extent(r), 2, SplitPolicy::kFactors,
                       kMaxReduceTile);
  }
  space->DefineOther(KnobName(ts.writer, "shared"), {0, 1});
  space->DefineOther(KnobName(ts.writer, "unroll"), {0, 1});
}

absl::Status Inline(schedule::Schedule& sch, const Tensor& t) {
  TF_GPU_ASSIGN_OR_RETURN(st, sch.StageOf(t));
  return st->ComputeInline();
}

// Fuses the leaf loops [first, last) of `st` into one.
absl::StatusOr<IterVar> FuseRange(schedule::Stage& st, const std::vector<IterVar>& loops) {
  IterVar fused = loops[0];
  for (size_t i = 1; i < loops.size(); ++i) {
    TF_GPU_ASSIGN_OR_RETURN(f, st.Fuse(fused, loops[i]));
    fused = f;
  }
  return fused;
}

// The output alone: fused, `per_thread` elements a thread, `threads` apart.
absl::Status ScheduleElementwise(const Tensor& output, const Config& config,
                                 schedule::Schedule& sch) {
  TF_GPU_ASSIGN_OR_RETURN(threads, config.Other(KnobName(output, "threads")));
  TF_GPU_ASSIGN_OR_RETURN(per_thread, config.Other(KnobName(output, "per_thread")));
  TF_GPU_ASSIGN_OR_RETURN(y, sch.StageOf(output));
  TF_GPU_ASSIGN_OR_RETURN(fused, FuseRange(*y, y->leaf_ivars()));
  TF_GPU_ASSIGN_OR_RETURN(t, y->Split(fused, threads));
  TF_GPU_ASSIGN_OR_RETURN(e, y->Split(t.first, per_thread));
  TF_GPU_RETURN_IF_ERROR(y->Reorder({e.first, e.second, t.second}));
  TF_GPU_RETURN_IF_ERROR(y->Bind(e.first, "blockIdx.x"));
  TF_GPU_RETURN_IF_ERROR(y->Bind(t.second, "threadIdx.x"));
  return y->Unroll(e.second);
}

// Multi-level tiling of a reduction and its elementwise writer (gpu_space.h, "tiled").
absl::Status ScheduleTiled(const Plan& p, const Config& config, schedule::Schedule& sch) {
  const Tensor writer = p.tiled.writer;
  TF_GPU_ASSIGN_OR_RETURN(shared, config.Other(KnobName(writer, "shared")));
  TF_GPU_ASSIGN_OR_RETURN(unroll, config.Other(KnobName(writer, "unroll")));
  for (const Tensor& t : p.stages) {
    if (IsReduction(t)) continue;
    if (shared != 0 && absl::c_linear_search(p.staged, t)) continue;  // Computed in shared.
    TF_GPU_RETURN_IF_ERROR(Inline(sch, t));
  }
  Tensor acc = p.tiled.accumulator;
  if (p.tiled.cache_write) {
    TF_GPU_ASSIGN_OR_RETURN(local, sch.CacheWrite(writer, "local"));
    acc = local;
  } else {
    TF_GPU_ASSIGN_OR_RETURN(a, sch.StageOf(acc));
    a->SetScope("local");
  }
  TF_GPU_ASSIGN_OR_RETURN(w, sch.StageOf(writer));
  const int rank = static_cast<int>(w->root_axes().size());
  std::vector<IterVar> blocks, threads, regs;
  int64_t thread_count = 1;
  for (int d = 0; d < rank; ++d) {
    const IterVar axis = w->axis(d);
    TF_GPU_ASSIGN_OR_RETURN(f, config.Split(KnobName(writer, absl::StrCat("tile_", axis->name()))));
    TF_GPU_ASSIGN_OR_RETURN(outer, w->Split(axis, f[1] * f[2]));
    TF_GPU_ASSIGN_OR_RETURN(inner, w->Split(outer.second, f[2]));
    blocks.push_back(outer.first);
    threads.push_back(inner.first);
    regs.push_back(inner.second);
    thread_count *= f[1];
  }
  std::vector<IterVar> order = blocks;
  order.insert(order.end(), threads.begin(), threads.end());
  order.insert(order.end(), regs.begin(), regs.end());
  TF_GPU_RETURN_IF_ERROR(w->Reorder(order));
  TF_GPU_ASSIGN_OR_RETURN(bx, FuseRange(*w, blocks));
  TF_GPU_ASSIGN_OR_RETURN(tx, FuseRange(*w, threads));
  TF_GPU_RETURN_IF_ERROR(w->Bind(bx, "blockIdx.x"));
  TF_GPU_RETURN_IF_ERROR(w->Bind(tx, "threadIdx.x"));
  for (const IterVar& r : regs) TF_GPU_RETURN_IF_ERROR(w->Unroll(r));

  // The accumulator: a thread's register tile, over the split reduce loops.
  TF_GPU_ASSIGN_OR_RETURN(l, sch.StageOf(acc));
  TF_GPU_RETURN_IF_ERROR(l->ComputeAt(*w, tx));
  std::vector<IterVar> r_outer, r_inner;
  for (int r = 0; r < static_cast<int>(l->reduce_axes().size()); ++r) {
    const IterVar axis = l->reduce_axis(r);
    TF_GPU_ASSIGN_OR_RETURN(f, config.Split(ReduceKnobName(writer, axis)));
    TF_GPU_ASSIGN_OR_RETURN(split, l->Split(axis, f[1]));
    r_outer.push_back(split.first);
    r_inner.push_back(split.second);
  }
  std::vector<IterVar> local_order = r_outer;
  local_order.insert(local_order.end(), r_inner.begin(), r_inner.end());
  for (int d = 0; d < static_cast<int>(l->root_axes().size()); ++d) {
    local_order.push_back(l->axis(d));
  }
  TF_GPU_RETURN_IF_ERROR(l->Reorder(local_order));
  for (int d = 0; d < static_cast<int>(l->root_axes().size()); ++d) {
    TF_GPU_RETURN_IF_ERROR(l->Unroll(l->axis(d)));
  }
  if (unroll != 0) {
    for (const IterVar& r : r_inner) TF_GPU_RETURN_IF_ERROR(l->Unroll(r));
  }
  if (shared == 0) return absl::OkStatus();

  // Shared staging: what the accumulator reads, once per outer reduce step, filled by the
  // whole block (coalesced along its contiguous axis).
  for (const Tensor& t : p.staged) {
    Tensor fill = t;
    if (t.compute() == nullptr) {
      TF_GPU_ASSIGN_OR_RETURN(cached, sch.CacheRead(t, "shared", {acc}));
      fill = cached;
    }
    TF_GPU_ASSIGN_OR_RETURN(fs, sch.StageOf(fill));
    fs->SetScope("shared");
    TF_GPU_RETURN_IF_ERROR(fs->ComputeAt(*l, r_outer.back()));
    TF_GPU_RETURN_IF_ERROR(CooperativeFetch(writer.name(), *fs, {1, 1, thread_count}, 1));
  }
  return absl::OkStatus();
}

// Splits loop `iv` of `st` by `threads` and binds the inner part to threadIdx.x (consecutive
// threads, consecutive elements).
absl::Status SpreadOverThreads(schedule::Stage& st, const IterVar& iv, int64_t threads) {
  TF_GPU_ASSIGN_OR_RETURN(split, st.Split(iv, threads));
  return st.Bind(split.second, "threadIdx.x");
}

// A block per row of the leading axes (gpu_space.h, "rows").
absl::Status ScheduleRows(const Plan& p, const Tensor& output, const Config& config,
                          schedule::Schedule& sch) {
  TF_GPU_ASSIGN_OR_RETURN(threads, config.Other(KnobName(output, "threads")));
  for (const Tensor& t : p.stages) {
    if (!IsReduction(t)) TF_GPU_RETURN_IF_ERROR(Inline(sch, t));
  }
  TF_GPU_ASSIGN_OR_RETURN(y, sch.StageOf(output));
  const int rank = static_cast<int>(y->root_axes().size());
  std::vector<IterVar> leading, rest;
  for (int d = 0; d < rank; ++d) (d < p.depth ? leading : rest).push_back(y->axis(d));
  TF_GPU_ASSIGN_OR_RETURN(row, FuseRange(*y, leading));
  TF_GPU_RETURN_IF_ERROR(y->Bind(row, "blockIdx.x"));
  TF_GPU_ASSIGN_OR_RETURN(cols, FuseRange(*y, rest));
  TF_GPU_RETURN_IF_ERROR(SpreadOverThreads(*y, cols, threads));
  // Readers first: a stage attaches only where all its readers are.
  for (auto it = p.stages.rbegin(); it != p.stages.rend(); ++it) {
    if (!IsReduction(*it)) continue;
    TF_GPU_ASSIGN_OR_RETURN(st, sch.StageOf(*it));
    st->SetScope("shared");
    TF_GPU_RETURN_IF_ERROR(st->ComputeAt(*y, row));
    const int st_rank = static_cast<int>(st->root_axes().size());
    if (st_rank > p.depth) {
      // A block of a row (the attention scores of one query): spread over the threads, each
      // reducing its elements alone.
      std::vector<IterVar> inner;
      for (int d = p.depth; d < st_rank; ++d) inner.push_back(st->axis(d));
      TF_GPU_ASSIGN_OR_RETURN(fused, FuseRange(*st, inner));
      TF_GPU_RETURN_IF_ERROR(SpreadOverThreads(*st, fused, threads));
      continue;
    }
    // A row statistic: a cross-thread reduction over the fused reduce loops.
    std::vector<IterVar> reduce;
    for (int r = 0; r < static_cast<int>(st->reduce_axes().size()); ++r) {
      reduce.push_back(st->reduce_axis(r));
    }
    TF_GPU_ASSIGN_OR_RETURN(fused, FuseRange(*st, reduce));
    TF_GPU_RETURN_IF_ERROR(SpreadOverThreads(*st, fused, threads));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DefineGpuGeneratedSpace(const std::vector<Tensor>& args, ConfigSpace* space) {
  absl::StatusOr<Plan> p = MakePlan(args);
  if (!p.ok()) return p.status();
  const Tensor& output = args.back();
  switch (p->shape) {
    case Shape::kElementwise:
      space->DefineOther(KnobName(output, "threads"), ElementwiseThreads());
      space->DefineOther(KnobName(output, "per_thread"), {1, 2, 4});
      break;
    case Shape::kTiled:
      DefineTiledKnobs(p->tiled, space);
      break;
    case Shape::kRows:
      space->DefineOther(KnobName(output, "threads"), RowThreads());
      break;
  }
  return absl::OkStatus();
}

absl::StatusOr<Instance> ApplyGpuGeneratedSchedule(const std::vector<Tensor>& args,
                                                   const Config& config) {
  absl::StatusOr<Plan> p = MakePlan(args);
  if (!p.ok()) return p.status();
  absl::StatusOr<Instance> inst = MakeInstance(args);
  if (!inst.ok()) return inst.status();
  schedule::Schedule& sch = *inst->sch;
  absl::Status s;
  switch (p->shape) {
    case Shape::kElementwise:
      for (const Tensor& t : p->stages) {
        if (s = Inline(sch, t); !s.ok()) return s;
      }
      s = ScheduleElementwise(args.back(), config, sch);
      break;
    case Shape::kTiled:
      s = ScheduleTiled(*p, config, sch);
      break;
    case Shape::kRows:
      s = ScheduleRows(*p, args.back(), config, sch);
      break;
  }
  if (!s.ok()) return s;
  return inst;
}

}  // namespace tunefarm::tuner

#undef TF_GPU_RETURN_IF_ERROR
#undef TF_GPU_ASSIGN_OR_RETURN
