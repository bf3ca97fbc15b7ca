// A register tile fits the vector registers. A tiled stage's register tile (sketch.h) keeps one
// accumulator per point of its inner tiles: the rows (the inner tiles of the axes other than the
// last) times the vector tile. Unrolled, those accumulators are meant to live in registers; more
// of them than the register file holds spill to the stack around every step of the reduction,
// and rows beyond 32 are not even unrolled (generated_space.cc), so they run as loops over
// accumulators in memory. Such configs were never among the fast ones: in 600 configs measured
// by three 200-trial runs of the Winograd program (3x3 64 @56), none of those with a stage's
// rows above 32 came within 90% of the fastest, and they were half of what was measured. So the
// generated space constrains every tiled stage's accumulators to the target's vector register
// file (ConfigSpace::AddConstraint), as AutoTVM's templates filter their tiles
// (ConfigSpace.multi_filter) and Ansor bounds its innermost tiles.
#ifndef TUNEFARM_TUNER_GENERATED_REGISTER_TILE_H_
#define TUNEFARM_TUNER_GENERATED_REGISTER_TILE_H_

#include <cstdint>

#include "compiler/codegen/target.h"
#include "tuner/generated/sketch.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

// Bytes of `target`'s vector registers that a register tile's accumulators may take: all 32
// registers of 64 bytes with AVX-512; on other x86 (AVX2) 15 of its 16 registers of 32 bytes,
// and on any other architecture (AArch64's NEON) 31 of its 32 of 16 bytes. Without AVX-512's
// embedded broadcast, the value a row shares across its vector tile (A[i, k] of a dense layer)
// is broadcast into a register of its own before its multiply-adds read it. On a Zen 3 core
// (AVX2) the dense layer's tiles of 16 accumulators (8 x 16, 4 x 32, 2 x 64, 16 x 8 floats)
// ran at 13-39 GFLOP/s against 77 for 6 x 16 (12 accumulators), M = N = K = 1024.
int64_t AccumulatorRegisterBytes(const codegen::Target& target);

// Adds the constraint "<writer>.registers" to `space` (once): the register tile of `ts`, the
// product of the inner factors of the writer's tile knobs that `space` defines times the
// accumulator's element size, is at most `accumulator_bytes` (AccumulatorRegisterBytes). Nothing
// for a stage without an accumulator or without tiled rows.
void AddRegisterTileConstraint(const TiledStage& ts, int64_t accumulator_bytes, ConfigSpace* space);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_REGISTER_TILE_H_
