#include "tuner/templates/amx_common.h"

#include <algorithm>

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
