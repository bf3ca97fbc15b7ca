// What the AMX templates (dense_u8s8_amx, conv2d_u8s8_amx) share: the target check and the
// blocks of output tiles one tensorized nest computes (codegen/amx_nest.h).
#ifndef TUNEFARM_TUNER_TEMPLATES_AMX_COMMON_H_
#define TUNEFARM_TUNER_TEMPLATES_AMX_COMMON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/codegen/target.h"

namespace tunefarm::tuner {

// Rows of a tile; int32 columns of an accumulator tile.
inline constexpr int64_t kAmxTile = 16;
// Bytes of the reduction one tdpbusd consumes per row: 16 groups of four inputs.
inline constexpr int64_t kAmxStep = 64;

// InvalidArgument naming `alternative` unless `target` is a CPU with AMX-INT8.
absl::Status CheckAmxTarget(const std::string& template_name, const codegen::Target& target,
                            const std::string& alternative);

// The blocks of the tile_mn knob, rows · 10 + column tiles: rows from 2 to 32 dividing `rows`
// (two tiles of 16 at most; one row would leave a tile idle), column tiles dividing
// `col_tiles`, each block within the eight tile registers (its accumulators, its A tiles and
// one W tile). Empty when `rows` has no such divisor.
std::vector<int64_t> AmxBlocks(int64_t rows, int64_t col_tiles);

// Splits a tile_mn value into rows and column tiles; InvalidArgument unless it is one of
// AmxBlocks(rows, col_tiles).
absl::Status DecodeAmxBlock(const std::string& template_name, int64_t block, int64_t rows,
                            int64_t col_tiles, int64_t* block_rows, int64_t* block_tiles);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_AMX_COMMON_H_
