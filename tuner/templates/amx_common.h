// What the AMX templates (dense_u8s8_amx, conv2d_u8s8_amx) share: the target check and the
// blocks of output tiles one tensorized nest computes (codegen/amx_nest.h).
#ifndef TUNEFARM_TUNER_TEMPLATES_AMX_COMMON_H_
#define TUNEFARM_TUNER_TEMPLATES_AMX_COMMON_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/codegen/amx_nest.h"
#include "compiler/codegen/target.h"
#include "compiler/ir/ir.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

// Rows of a tile; int32 columns of an accumulator tile.
inline constexpr int64_t kAmxTile = codegen::kAmxTileRows;
// Bytes of the reduction one tdpbusd consumes per row: 16 groups of four inputs.
inline constexpr int64_t kAmxStep = codegen::kAmxRowBytes;

// InvalidArgument naming `alternative` unless `target` is a CPU with AMX-INT8.
absl::Status CheckAmxTarget(const std::string& template_name, const codegen::Target& target,
                            const std::string& alternative);

// The blocks of the tile_mn knob, rows · 10 + column tiles: rows up to 32 dividing `rows` (two
// tiles of 16 at most), at least half of min(16, rows) and at least 2, column tiles dividing
// `col_tiles`, each block within the eight tile registers (its accumulators, its A tiles and
// one W tile). Empty when `rows` has no such divisor.
std::vector<int64_t> AmxBlocks(int64_t rows, int64_t col_tiles);

// Defines the knobs both AMX templates have: tile_mn (AmxBlocks), order and parallel.
// InvalidArgument, naming `alternative`, where the target has no AMX-INT8 or `rows` (described
// by `rows_what` in the message, e.g. "M=37") has no block.
absl::Status DefineAmxKnobs(const std::string& template_name, const codegen::Target& target,
                            const std::string& alternative, int64_t rows,
                            const std::string& rows_what, int64_t col_tiles, ConfigSpace* space);

struct AmxKnobs {
  int64_t rows = 0;       // Rows of a block (tile_mn / 10).
  int64_t col_tiles = 0;  // Column tiles of a block (tile_mn % 10).
  int64_t order = 0;
  bool parallel = false;
};

// Reads the knobs DefineAmxKnobs defines (Internal for a config of another space), then checks
// the target and the block (InvalidArgument).
absl::StatusOr<AmxKnobs> ReadAmxKnobs(const std::string& template_name, const Config& config,
                                      const codegen::Target& target, const std::string& alternative,
                                      int64_t rows, int64_t col_tiles);

// Σ_{u<4} int32(a(u)) · int32(w(u)): four consecutive inputs of a uint8 operand and an int8
// weight in the VNNI layout, the sum one tdpbusd (or vpdpbusd) lane computes.
ir::Expr ByteGroupSum(const std::function<ir::Expr(int)>& a, const std::function<ir::Expr(int)>& w);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_AMX_COMMON_H_
