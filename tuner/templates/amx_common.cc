#include "tuner/templates/amx_common.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace tunefarm::tuner {
namespace {

constexpr int64_t kTileRegisters = 8;  // tmm0..tmm7.
constexpr int64_t kMaxRows = 32;       // Two row tiles.
constexpr int64_t kMaxColTiles = 6;    // One row tile: six accumulators, an A and a W tile.

bool FitsTileRegisters(int64_t rows, int64_t col_tiles) {
  const int64_t tiles_m = (rows + kAmxTile - 1) / kAmxTile;
  return tiles_m * col_tiles + tiles_m + 1 <= kTileRegisters;
}

}  // namespace

absl::Status CheckAmxTarget(const std::string& name, const codegen::Target& target,
                            const std::string& alternative) {
  if (target.kind == codegen::Target::Kind::kLLVM &&
      codegen::TargetHasFeature(target, "amx-int8")) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(name, " needs a CPU with AMX-INT8 (e.g. llvm -mcpu=sapphirerapids), not '",
                   target.str, "'; ", alternative));
}

std::vector<int64_t> AmxBlocks(int64_t rows, int64_t col_tiles) {
  std::vector<int64_t> blocks;
  for (int64_t r = 2; r <= std::min(rows, kMaxRows); ++r) {
    if (rows % r != 0) continue;
    for (int64_t n = 1; n <= std::min(col_tiles, kMaxColTiles); ++n) {
      if (col_tiles % n == 0 && FitsTileRegisters(r, n)) blocks.push_back(r * 10 + n);
    }
  }
  return blocks;
}

absl::Status DecodeAmxBlock(const std::string& name, int64_t block, int64_t rows, int64_t col_tiles,
                            int64_t* block_rows, int64_t* block_tiles) {
  const std::vector<int64_t> blocks = AmxBlocks(rows, col_tiles);
  if (std::find(blocks.begin(), blocks.end(), block) == blocks.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, ": tile_mn=", block, " is not a block of ", rows, " rows and ", col_tiles,
        " column tiles (rows 2..32 dividing them, column tiles dividing theirs, within the "
        "eight tile registers)"));
  }
  *block_rows = block / 10;
  *block_tiles = block % 10;
  return absl::OkStatus();
}

}  // namespace tunefarm::tuner
