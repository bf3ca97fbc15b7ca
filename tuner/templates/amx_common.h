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
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"
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

// The k_steps values of a reduction of `step_groups` steps of 64 bytes: its divisors up to
// codegen::kAmxMaxSteps.
std::vector<int64_t> AmxKSteps(int64_t step_groups);

// The iterations of all reduction axes but the innermost (a convolution's taps), saturated
// just past codegen::kAmxMaxSteps; 0 for an extent that is not a constant.
int64_t AmxWindowSteps(const std::vector<te::IterVar>& reduce_axis);

// Whether the taps are inside the nest: all of the reduction in one nest (k_steps =
// step_groups) and the taps times its steps within codegen::kAmxMaxSteps.
bool AmxWindowInNest(int64_t step_groups, int64_t window_steps, int64_t k_steps);

// The AMX nest schedule of the templates and of the generated space's AMX rule
// (tuner/generated/amx_tiling.h). `output` is a reduction whose last axis is the columns (a
// multiple of 16), the one before it the rows and its innermost reduction axis the groups of
// four inputs (a multiple of 16). Its other axes are fused into one loop; the rows split into
// blocks of knobs.rows, the columns into blocks of knobs.col_tiles tiles of 16, the groups into
// k_steps steps of 16 per nest. Loops: the fused axes, row blocks, column blocks (column blocks
// first under knobs.order 1); the taps and the outer steps when they are outside the nest
// (AmxWindowInNest); the nest, tensorized as kAmxDotProduct: rows, column tiles, 16 columns,
// the taps when inside, the steps. knobs.parallel runs the outermost loop on the thread pool.
// Returns the loop where a stage computed per tile (a padding) goes: the fused axes' loop,
// else the outermost. Internal: `output` is no such reduction; InvalidArgument or
// FailedPrecondition: a schedule primitive refused the knobs.
absl::StatusOr<te::IterVar> ScheduleAmxNests(const te::Tensor& output, const AmxKnobs& knobs,
                                             int64_t k_steps, schedule::Schedule* sch);

// Σ_{u<4} int32(a(u)) · int32(w(u)): four consecutive inputs of a uint8 operand and an int8
// weight in the VNNI layout, the sum one tdpbusd (or vpdpbusd) lane computes.
ir::Expr ByteGroupSum(const std::function<ir::Expr(int)>& a, const std::function<ir::Expr(int)>& w);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TEMPLATES_AMX_COMMON_H_
