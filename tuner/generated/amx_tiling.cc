#include "tuner/generated/amx_tiling.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/amx_nest.h"
#include "compiler/ir/ir_util.h"
#include "tuner/generated/knob_names.h"
#include "tuner/generated/sketch.h"
#include "tuner/templates/amx_common.h"

namespace tunefarm::tuner {
namespace {

using ir::DataType;
using te::IterVar;
using te::Tensor;

// Window iterations past any nest's steps (codegen::kAmxMaxSteps) count as this many.
constexpr int64_t kSaturated = codegen::kAmxMaxSteps + 1;

int64_t Extent(const IterVar& iv) {
  const int64_t* e = ir::AsConstInt(iv->dom.extent);
  return e == nullptr ? 0 : *e;
}

// The load under int32(...), or null.
const ir::LoadNode* Int32OfLoad(const ir::Expr& e) {
  const auto* cast = e.as<ir::CastNode>();
  if (cast == nullptr || cast->type != DataType::Int(32)) return nullptr;
  return cast->value.as<ir::LoadNode>();
}

// The iterations of all reduction axes but the innermost (a window's taps), saturated at
// kSaturated: past a nest's steps the window stays outside the nest. 0: an extent that is not a
// constant.
int64_t WindowSteps(const std::vector<IterVar>& reduce_axis) {
  int64_t steps = 1;
  for (size_t r = 0; r + 1 < reduce_axis.size(); ++r) {
    const int64_t e = Extent(reduce_axis[r]);
    if (e == 0) return 0;
    steps = std::min(steps * std::min(e, kSaturated), kSaturated);
  }
  return steps;
}

// A term int32(a) · int32(w), a uint8 and w int8, either way round.
bool SplitTerm(const ir::Expr& term, const ir::LoadNode** a, const ir::LoadNode** w) {
  const auto* mul = term.as<ir::BinaryNode>();
  if (mul == nullptr || mul->op != ir::BinaryOp::kMul) return false;
  const ir::LoadNode* x = Int32OfLoad(mul->a);
  const ir::LoadNode* y = Int32OfLoad(mul->b);
  if (x == nullptr || y == nullptr) return false;
  if (x->type == DataType::Int(8) && y->type == DataType::UInt(8)) std::swap(x, y);
  if (x->type != DataType::UInt(8) || y->type != DataType::Int(8)) return false;
  *a = x;
  *w = y;
  return true;
}

bool Indexes(const ir::LoadNode* load, const IterVar& iv) {
  for (const ir::Expr& i : load->indices) {
    if (ir::UsesVar(i, [&](const ir::VarNode* v) { return v == iv->var.get(); })) return true;
  }
  return false;
}

std::string AmxKnob(const Tensor& output, const char* what) { return KnobName(output, what); }

}  // namespace

std::optional<AmxTiling> FindAmxTiling(const std::vector<Tensor>& args,
                                       const codegen::Target& target) {
  if (args.empty() || !CheckAmxTarget("", target, "").ok()) return std::nullopt;
  const Tensor& out = args.back();
  const te::ComputeOpNode* c = out.compute();
  if (c == nullptr || c->axis.size() < 2 || c->reduce_axis.empty() ||
      out.dtype() != DataType::Int(32)) {
    return std::nullopt;
  }
  for (const Tensor& t : ComputeStages(out)) {
    if (t != out && !t.compute()->reduce_axis.empty()) return std::nullopt;  // One reduction.
  }
  const auto* reduce = c->body.as<ir::ReduceNode>();
  if (reduce == nullptr || reduce->op != ir::ReduceOp::kSum) return std::nullopt;
  const std::vector<ir::Expr> terms = ir::SumTerms(reduce->source);
  if (terms.size() != 4) return std::nullopt;
  const IterVar& rows = c->axis[c->axis.size() - 2];
  const IterVar& cols = c->axis.back();
  const ir::BufferNode* a_buffer = nullptr;
  const ir::BufferNode* w_buffer = nullptr;
  for (const ir::Expr& term : terms) {
    const ir::LoadNode* a = nullptr;
    const ir::LoadNode* w = nullptr;
    if (!SplitTerm(term, &a, &w)) return std::nullopt;
    if (a_buffer == nullptr) a_buffer = a->buffer.get(), w_buffer = w->buffer.get();
    if (a->buffer.get() != a_buffer || w->buffer.get() != w_buffer) return std::nullopt;
    // A tile row of A per row of the output, a column of W per output column.
    if (!Indexes(a, rows) || Indexes(a, cols) || Indexes(w, rows) || !Indexes(w, cols)) {
      return std::nullopt;
    }
  }
  AmxTiling t;
  t.output = out;
  t.rows = Extent(rows);
  const int64_t columns = Extent(cols), groups = Extent(c->reduce_axis.back());
  if (columns % kAmxTile != 0 || groups % kAmxTile != 0 || t.rows == 0) return std::nullopt;
  t.col_tiles = columns / kAmxTile;
  t.step_groups = groups / kAmxTile;
  t.window_steps = WindowSteps(c->reduce_axis);
  if (t.window_steps == 0) return std::nullopt;
  if (AmxBlocks(t.rows, t.col_tiles).empty() || AmxKSteps(t).empty()) return std::nullopt;
  return t;
}

std::vector<int64_t> AmxKSteps(const AmxTiling& t) {
  std::vector<int64_t> out;
  for (int64_t s = 1; s <= t.step_groups && s <= codegen::kAmxMaxSteps; ++s) {
    if (t.step_groups % s == 0) out.push_back(s);
  }
  return out;
}

bool AmxWindowInNest(const AmxTiling& t, int64_t k_steps) {
  return k_steps == t.step_groups && t.step_groups * t.window_steps <= codegen::kAmxMaxSteps;
}

void DefineAmxTilingKnobs(const AmxTiling& t, ConfigSpace* space) {
  space->DefineOther(AmxKnob(t.output, "amx_block"), AmxBlocks(t.rows, t.col_tiles));
  space->DefineOther(AmxKnob(t.output, "amx_k_steps"), AmxKSteps(t));
  space->DefineOther(AmxKnob(t.output, "amx_order"), {0, 1});
}

bool IsAmxTilingSpace(const Tensor& output, const ConfigSpace& space) {
  return space.KnobIndex(AmxKnob(output, "amx_block")) >= 0;
}

absl::StatusOr<IterVar> ApplyAmxTiling(const Tensor& output, const Config& config, bool parallel,
                                       schedule::Schedule* sch) {
  absl::StatusOr<int64_t> block = config.Other(AmxKnob(output, "amx_block"));
  if (!block.ok()) return block.status();
  absl::StatusOr<int64_t> k_steps = config.Other(AmxKnob(output, "amx_k_steps"));
  if (!k_steps.ok()) return k_steps.status();
  absl::StatusOr<int64_t> order = config.Other(AmxKnob(output, "amx_order"));
  if (!order.ok()) return order.status();
  absl::StatusOr<schedule::Stage*> stage = sch->StageOf(output);
  if (!stage.ok()) return stage.status();
  schedule::Stage& s = **stage;
  const int rank = static_cast<int>(s.root_axes().size());
  const int reductions =
      output.compute() == nullptr ? 0 : static_cast<int>(output.compute()->reduce_axis.size());
  const IterVar groups = reductions > 0 ? s.reduce_axis(reductions - 1) : nullptr;
  if (rank < 2 || groups == nullptr || Extent(groups) % kAmxTile != 0 || *k_steps < 1) {
    return absl::InternalError(absl::StrCat("AMX tiling: a config for another program (",
                                            output.name(), " is not the reduction it tiles)"));
  }
  const int64_t rows = *block / 10, col_tiles = *block % 10;
  AmxTiling shape;
  shape.step_groups = Extent(groups) / kAmxTile;
  shape.window_steps = WindowSteps(output.compute()->reduce_axis);
  const bool whole = *k_steps == shape.step_groups;
  const bool window_inside = AmxWindowInNest(shape, *k_steps);
  absl::StatusOr<std::pair<IterVar, IterVar>> row_split = s.Split(s.axis(rank - 2), rows);
  if (!row_split.ok()) return row_split.status();
  absl::StatusOr<std::pair<IterVar, IterVar>> col_split =
      s.Split(s.axis(rank - 1), col_tiles * kAmxTile);
  if (!col_split.ok()) return col_split.status();
  absl::StatusOr<std::pair<IterVar, IterVar>> tile_split = s.Split(col_split->second, kAmxTile);
  if (!tile_split.ok()) return tile_split.status();
  std::pair<IterVar, IterVar> group_split = {IterVar(), groups};
  if (!whole) {
    absl::StatusOr<std::pair<IterVar, IterVar>> g = s.Split(groups, *k_steps * kAmxTile);
    if (!g.ok()) return g.status();
    group_split = *g;
  }
  // The output's other axes (a batch, an image's rows) as one loop.
  IterVar outer;
  for (int d = 0; d + 2 < rank; ++d) {
    if (outer == nullptr) {
      outer = s.axis(d);
      continue;
    }
    absl::StatusOr<IterVar> fused = s.Fuse(outer, s.axis(d));
    if (!fused.ok()) return fused.status();
    outer = *fused;
  }
  std::vector<IterVar> loops;
  const IterVar row_block = row_split->first, col_block = col_split->first;
  if (*order == 0) {
    if (outer != nullptr) loops.push_back(outer);
    loops.push_back(row_block);
    loops.push_back(col_block);
  } else {
    loops.push_back(col_block);
    if (outer != nullptr) loops.push_back(outer);
    loops.push_back(row_block);
  }
  std::vector<IterVar> window;
  for (int r = 0; r + 1 < reductions; ++r) window.push_back(s.reduce_axis(r));
  if (!window_inside) loops.insert(loops.end(), window.begin(), window.end());
  if (!whole) loops.push_back(group_split.first);
  const IterVar nest = row_split->second;
  loops.push_back(nest);
  loops.push_back(tile_split->first);
  loops.push_back(tile_split->second);
  if (window_inside) loops.insert(loops.end(), window.begin(), window.end());
  loops.push_back(group_split.second);
  if (absl::Status st = s.Reorder(loops); !st.ok()) return st;
  if (absl::Status st = s.Tensorize(nest, schedule::TensorIntrinsic::kAmxDotProduct); !st.ok()) {
    return st;
  }
  if (parallel) {
    if (absl::Status st = s.Parallel(loops[0]); !st.ok()) return st;
  }
  // A stage computed per tile (a padding) goes in the loop over the output's other axes (an
  // image's rows): under amx_order 1 the outermost loop is the column blocks, and there the
  // stage would be the whole padded input again for every block.
  return outer != nullptr ? outer : loops[0];
}

}  // namespace tunefarm::tuner
