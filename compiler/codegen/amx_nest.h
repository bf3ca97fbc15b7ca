// Recognizing a tensorized loop nest (schedule::TensorIntrinsic::kAmxDotProduct) as Intel AMX
// tile operations: which loop steps rows, columns and the reduction, and where each tile of C,
// A and W starts and how far apart its rows lie.
//
// The nest, outermost first: the rows (any extent: tiles of 16 rows, the last one shorter), an
// optional loop over column tiles, the 16 columns of a tile, then (the update only) the
// reduction loops, the innermost one over groups of four inputs in steps of 16 groups (64
// bytes, one tdpbusd). Its single store is either the accumulator's initialization C = 0 or
// (the update, optionally preceded by C = 0 right before the reduction loops)
//   C[c] = C[c] + Σ_{u<4} int32(A[a + u]) · int32(W[w + u])
// with A uint8, W int8 and C int32, c, a and w affine in the nest's loops: a column step is 4
// bytes of W (its VNNI layout [..][K/4][16][4]), a group step 4 bytes of A.
#ifndef TUNEFARM_COMPILER_CODEGEN_AMX_NEST_H_
#define TUNEFARM_COMPILER_CODEGEN_AMX_NEST_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::codegen {

struct AmxNest {
  // The initialization C = 0 (tilezero and tile stores) rather than the update.
  bool zero = false;
  // The update with its own initialization inside (before the reduction loops): the
  // accumulators start from zero instead of C.
  bool starts_at_zero = false;
  // Rows of the block (tiles of 16, the last one rows % 16 when that is not 0) and column
  // tiles of 16 int32.
  int64_t rows = 0;
  int64_t col_tiles = 1;
  // C: where the block starts and the elements between rows and between column tiles.
  const ir::BufferNode* c = nullptr;
  ir::Expr c_base;
  int64_t c_row_stride = 0, c_tile_stride = 0;
  // The update's operands: A's rows (bytes apart), W's rows (a group of four inputs of 16
  // columns: 64 bytes, `w_row_stride` apart) and column tiles.
  const ir::BufferNode* a = nullptr;
  const ir::BufferNode* w = nullptr;
  ir::Expr a_base, w_base;
  int64_t a_row_stride = 0, w_row_stride = 0, w_tile_stride = 0;
  // Per reduction step (64 bytes of A's rows, 16 rows of W): the offsets from a_base, w_base.
  std::vector<int64_t> a_steps, w_steps;
};

// Rows of a tile (and int32 columns of an accumulator tile).
inline constexpr int64_t kAmxTileRows = 16;
// Bytes of a tile row: the 64 bytes of input one tdpbusd step consumes per row.
inline constexpr int64_t kAmxRowBytes = 64;
// At most this many reduction steps per nest (the steps are emitted unrolled).
inline constexpr int64_t kAmxMaxSteps = 256;

// Whether a block of `rows` rows by `col_tiles` column tiles fits the eight tile registers:
// its accumulators, its A tiles (one per 16 rows) and one W tile at a time.
bool AmxBlockFits(int64_t rows, int64_t col_tiles);

// Whether `op` is tensorized as kAmxDotProduct (its form is MatchAmxNest's to check).
bool IsAmxLoop(const ir::ForNode* op);

// The loops of `body` tensorized as kAmxDotProduct, in program order (not inside one another).
std::vector<const ir::ForNode*> FindAmxLoops(const ir::Stmt& body);

// InvalidArgument (naming the loop and what differs): the nest at `op` does not have the form
// above, or needs more than the eight tile registers (accumulators, A tiles and one W tile)
// or more than kAmxMaxSteps steps.
absl::StatusOr<AmxNest> MatchAmxNest(const ir::ForNode* op);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_AMX_NEST_H_
