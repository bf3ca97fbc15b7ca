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

// Bytes of `target`'s vector register file: 32 registers of 64 bytes with AVX-512, 16 of 32 on
// other x86 (AVX2), and 32 of 16 on any other architecture (AArch64's NEON).
int64_t VectorRegisterFileBytes(const codegen::Target& target);

// Adds the constraint "<writer>.registers" to `space` (once): the register tile of `ts`, the
// product of the inner factors of the writer's tile knobs that `space` defines times the
// accumulator's element size, is at most `register_file_bytes`. Nothing for a stage without an
// accumulator or without tiled rows.
void AddRegisterTileConstraint(const TiledStage& ts, int64_t register_file_bytes,
                               ConfigSpace* space);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_REGISTER_TILE_H_
