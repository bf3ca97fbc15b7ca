// Recognizing a tensorized loop nest (schedule::Stage::Tensorize) as one WMMA operation: the
// nest's loops (extent 16), its single store and the affine indices of its accesses give the
// fragments, the memory operand's base offset and its leading dimension (ldm).
#ifndef TUNEFARM_COMPILER_CODEGEN_WMMA_NEST_H_
#define TUNEFARM_COMPILER_CODEGEN_WMMA_NEST_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "compiler/ir/ir.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::codegen {

// An element offset into a buffer where a 16×16 tile starts.
struct TileRef {
  const ir::BufferNode* buffer = nullptr;
  ir::Expr base;
};

struct WmmaNest {
  schedule::TensorIntrinsic op;
  // kWmmaMma: the accumulator's initialization (C = 0) rather than C += A·B.
  bool fill = false;
  // The fragment written (loads, mma, fill) or read (store).
  TileRef fragment;
  // kWmmaMma: the operands.
  TileRef a, b;
  // Loads and stores: the tile in shared or global memory, row-major with `ldm` elements
  // between rows.
  TileRef memory;
  int64_t ldm = 0;
};

// InvalidArgument (naming the loop and what differs): the nest at `op` does not have the form
// of the intrinsic its pragma names (see schedule::TensorIntrinsic).
absl::StatusOr<WmmaNest> MatchWmmaNest(const ir::ForNode* op);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_WMMA_NEST_H_
