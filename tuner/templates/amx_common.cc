#include "tuner/templates/amx_common.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/ir_operators.h"
#include "llvm/TargetParser/Triple.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

constexpr int64_t kMaxRows = 32;     // Two row tiles.
constexpr int64_t kMaxColTiles = 6;  // One row tile: six accumulators, an A and a W tile.

}  // namespace

absl::Status CheckAmxTarget(const std::string& name, const codegen::Target& target,
                            const std::string& alternative) {
  // The tile state is requested from Linux (arch_prctl); amx-int8 is an x86 feature.
  const llvm::Triple triple(target.triple);
  if (target.kind == codegen::Target::Kind::kLLVM && triple.getArch() == llvm::Triple::x86_64 &&
      triple.isOSLinux() && codegen::TargetHasFeature(target, "amx-int8")) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      name, " needs an x86-64 Linux CPU with AMX-INT8 (e.g. llvm -mcpu=sapphirerapids), not '",
      target.str, "'; ", alternative));
}

std::vector<int64_t> AmxBlocks(int64_t rows, int64_t col_tiles) {
  std::vector<int64_t> blocks;
  // Blocks that fill at least half a tile's 16 rows (or half of all the rows there are): a
  // block of 2 or 4 rows leaves most of the multiplier idle and only slows the search.
  const int64_t min_rows = std::max<int64_t>(2, (std::min(rows, kAmxTile) + 1) / 2);
  for (int64_t r = min_rows; r <= std::min(rows, kMaxRows); ++r) {
    if (rows % r != 0) continue;
    for (int64_t n = 1; n <= std::min(col_tiles, kMaxColTiles); ++n) {
      if (col_tiles % n == 0 && codegen::AmxBlockFits(r, n)) blocks.push_back(r * 10 + n);
    }
  }
  return blocks;
}

absl::Status DefineAmxKnobs(const std::string& name, const codegen::Target& target,
                            const std::string& alternative, int64_t rows,
                            const std::string& rows_what, int64_t col_tiles, ConfigSpace* space) {
  if (absl::Status s = CheckAmxTarget(name, target, alternative); !s.ok()) return s;
  const std::vector<int64_t> blocks = AmxBlocks(rows, col_tiles);
  if (blocks.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": ", rows_what,
        " has no divisor up to 32 that fills half a tile of rows for a block; ", alternative));
  }
  space->DefineOther("tile_mn", blocks);
  space->DefineOther("order", {0, 1});
  space->DefineOther("parallel", {0, 1});
  return absl::OkStatus();
}

absl::StatusOr<AmxKnobs> ReadAmxKnobs(const std::string& name, const Config& config,
                                      const codegen::Target& target, const std::string& alternative,
                                      int64_t rows, int64_t col_tiles) {
  TF_TEMPLATE_ASSIGN_OR_RETURN(block, config.Other("tile_mn"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(order, config.Other("order"), name);
  TF_TEMPLATE_ASSIGN_OR_RETURN(parallel, config.Other("parallel"), name);
  if (absl::Status s = CheckAmxTarget(name, target, alternative); !s.ok()) return s;
  const std::vector<int64_t> blocks = AmxBlocks(rows, col_tiles);
  if (std::find(blocks.begin(), blocks.end(), block) == blocks.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": tile_mn=", block, " is not a block of ", rows, " rows and ", col_tiles,
        " column tiles (rows up to 32 dividing them, at least half of min(16, them), column "
        "tiles dividing theirs, within the "
        "eight tile registers)"));
  }
  return AmxKnobs{block / 10, block % 10, order, parallel != 0};
}

namespace {

// Window iterations past any nest's steps count as this many.
constexpr int64_t kSaturated = codegen::kAmxMaxSteps + 1;

int64_t ConstExtent(const te::IterVar& iv) {
  const int64_t* e = ir::AsConstInt(iv->dom.extent);
  return e == nullptr ? 0 : *e;
}

}  // namespace

std::vector<int64_t> AmxKSteps(int64_t step_groups) {
  std::vector<int64_t> out;
  for (int64_t s = 1; s <= step_groups && s <= codegen::kAmxMaxSteps; ++s) {
    if (step_groups % s == 0) out.push_back(s);
  }
  return out;
}

int64_t AmxWindowSteps(const std::vector<te::IterVar>& reduce_axis) {
  int64_t steps = 1;
  for (size_t r = 0; r + 1 < reduce_axis.size(); ++r) {
    const int64_t e = ConstExtent(reduce_axis[r]);
    if (e == 0) return 0;
    steps = std::min(steps * std::min(e, kSaturated), kSaturated);
  }
  return steps;
}

bool AmxWindowInNest(int64_t step_groups, int64_t window_steps, int64_t k_steps) {
  return k_steps == step_groups && step_groups * window_steps <= codegen::kAmxMaxSteps;
}

absl::StatusOr<te::IterVar> ScheduleAmxNests(const te::Tensor& output, const AmxKnobs& knobs,
                                             int64_t k_steps, schedule::Schedule* sch) {
  using te::IterVar;
  absl::StatusOr<schedule::Stage*> stage = sch->StageOf(output);
  if (!stage.ok()) return stage.status();
  schedule::Stage& s = **stage;
  const int rank = static_cast<int>(s.root_axes().size());
  const int reductions =
      output.compute() == nullptr ? 0 : static_cast<int>(output.compute()->reduce_axis.size());
  const IterVar groups = reductions > 0 ? s.reduce_axis(reductions - 1) : nullptr;
  if (rank < 2 || groups == nullptr || ConstExtent(groups) % kAmxTile != 0 || k_steps < 1) {
    return absl::InternalError(
        absl::StrCat("AMX nests: ", output.name(), " is not a reduction over groups of 16 steps"));
  }
  const int64_t step_groups = ConstExtent(groups) / kAmxTile;
  const bool whole = k_steps == step_groups;
  const bool window_inside =
      AmxWindowInNest(step_groups, AmxWindowSteps(output.compute()->reduce_axis), k_steps);
  absl::StatusOr<std::pair<IterVar, IterVar>> row_split = s.Split(s.axis(rank - 2), knobs.rows);
  if (!row_split.ok()) return row_split.status();
  absl::StatusOr<std::pair<IterVar, IterVar>> col_split =
      s.Split(s.axis(rank - 1), knobs.col_tiles * kAmxTile);
  if (!col_split.ok()) return col_split.status();
  absl::StatusOr<std::pair<IterVar, IterVar>> tile_split = s.Split(col_split->second, kAmxTile);
  if (!tile_split.ok()) return tile_split.status();
  std::pair<IterVar, IterVar> group_split = {IterVar(), groups};
  if (!whole) {
    absl::StatusOr<std::pair<IterVar, IterVar>> g = s.Split(groups, k_steps * kAmxTile);
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
  if (knobs.order == 0) {
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
  if (knobs.parallel) {
    if (absl::Status st = s.Parallel(loops[0]); !st.ok()) return st;
  }
  // Under order 1 the outermost loop is the column blocks: a padding there would be the whole
  // padded input again for every block.
  return outer != nullptr ? outer : loops[0];
}

ir::Expr ByteGroupSum(const std::function<ir::Expr(int)>& a,
                      const std::function<ir::Expr(int)>& w) {
  ir::Expr sum;
  for (int u = 0; u < 4; ++u) {
    ir::Expr term = ir::cast(ir::DataType::Int(32), a(u)) * ir::cast(ir::DataType::Int(32), w(u));
    sum = u == 0 ? term : sum + term;
  }
  return sum;
}

}  // namespace tunefarm::tuner
