// A register tile fits the vector registers. A tiled stage's register tile (sketch.h) keeps one
// accumulator per point of its inner tiles: the rows (the inner tiles of the axes other than the
// last) times the vector tile. Unrolled, those accumulators are meant to live in registers; more
// of them than the register file holds spill to the stack around every step of the reduction,
// and rows beyond 32 are not even unrolled (generated_space.cc), so they run as loops over
// accumulators in memory. Such configs were never among the fast ones: in 600 configs measured
// by three 200-trial runs of the Winograd program (3x3 64 @56), none of those with a stage's
// rows above 32 came within 90% of the fastest, and they were half of what was measured. So the
// generated space constrains every tiled stage's register tile to the target's vector register
// file (ConfigSpace::AddConstraint), as AutoTVM's templates filter their tiles
// (ConfigSpace.multi_filter) and Ansor bounds its innermost tiles.
//
// The accumulators are not all the registers a step of the reduction keeps live. The unrolled
// tile runs its rows one after another (in axis order unless RegisterRowOrder says otherwise),
// the vector innermost. A value the step reads is kept across the rows of the outermost row with
// a tile above 1 that its load does not index (a dense layer's weight vectors W[j, k] across the
// rows i; a convolution's input values X[c, y, x·St, cb] across the output blocks f), so its
// values that differ along the rows inside that one are live at once. A load that indexes every
// row with a tile above 1 is not kept: a vector is a memory operand of the one multiply-add that
// reads it, and a scalar broadcast to the vector tile's multiply-adds takes one register, except
// with AVX-512 when the tile is one vector wide: then its one multiply-add broadcasts it from
// memory. With more vectors LLVM broadcasts it once into a register; the 7 x 64 dense tile (28
// accumulators, 4 weight vectors), admitted at 32 registers when the rule counted no broadcast
// register with AVX-512, spilled three accumulators to the stack around every step (run 21's
// dense 49 x 512 x 4608 winner, docs/cpu_kernels.md). The rule counts accumulators plus those
// registers. Counting only accumulators admitted convolution tiles that
// spill 40 to 88 registers to the stack and ran at 0.5 to 0.7 of the fastest (tuner/README, "A
// register tile fits the vector registers").
#ifndef TUNEFARM_TUNER_GENERATED_REGISTER_TILE_H_
#define TUNEFARM_TUNER_GENERATED_REGISTER_TILE_H_

#include <cstdint>
#include <vector>

#include "compiler/codegen/target.h"
#include "tuner/generated/sketch.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

// The vector registers a register tile may take on a target.
struct VectorRegisterFile {
  int64_t registers = 0;
  int64_t bytes = 0;                // Of one register.
  bool embedded_broadcast = false;  // A multiply-add may broadcast a scalar from memory.
  // The registers one value of a byte dot group takes (below): 1 where vpdpbusd reads the four
  // bytes as they are, 2 where they are widened to two int16 pairs for vpmaddwd (AVX2).
  int64_t byte_group_registers = 2;
};

// AVX-512: 32 registers of 64 bytes with embedded broadcast (byte groups in 1 with VNNI, 2
// without). Other x86 (AVX2): 16 of 32 bytes; any other architecture (AArch64's NEON): 32 of 16
// bytes. Without embedded broadcast, the value a row shares across its vector tile (A[i, k] of a
// dense layer) is broadcast into a register of its own before its multiply-adds read it. On a Zen 3
// core (AVX2) the dense layer's tiles of 16 accumulators (8 x 16, 4 x 32, 2 x 64, 16 x 8 floats)
// ran at 13-39 GFLOP/s against 77 for 6 x 16 (12 accumulators, 2 weight vectors and the broadcast:
// 15 registers), M = N = K = 1024.
VectorRegisterFile TargetVectorRegisters(const codegen::Target& target);

// The axes (bit d for axis d) that each distinct load of `reduction`'s body indexes: what one
// step of its reduction reads, one entry per register a value of the load takes. A byte dot
// group, four loads of 8-bit integers from one buffer that index the same axes and read four
// consecutive bytes (A[i, 4k + u], u = 0..3, of dense_u8s8_vnni.te), is one 32-bit value to the
// code generator (compiler/codegen/vnni_dot.cc): it counts `file.byte_group_registers` entries,
// not four. Counted as four, AVX2's 4 x 16 int8 tile (8 accumulators, the broadcast's two
// widened halves, two widened halves per weight vector: 14 registers) was refused at 20.
std::vector<uint64_t> ReadAxisMasks(const te::Tensor& reduction,
                                    const VectorRegisterFile& file = {});

// The registers one step of the reduction keeps live in a register tile (see above):
// `inner[d]` is the inner tile of the stage's axis d (the last one the vector axis), `reads` as
// ReadAxisMasks gives them, `element_bytes` the accumulator's element size, and `row_order` the
// row axes as the unrolled tile runs them, outermost first (empty: in axis order).
int64_t LiveRegisters(const std::vector<int64_t>& inner, const std::vector<uint64_t>& reads,
                      int64_t element_bytes, const VectorRegisterFile& file,
                      const std::vector<int>& row_order = {});

// The order the unrolled register tile runs its rows in, outermost first: the axis order when
// it keeps the tile within `file.registers` (LiveRegisters), otherwise the order of the rows
// with a tile above 1 that keeps the fewest registers live (the first such in lexicographic
// order). A 1x1 stride-2 convolution's 2 x 14 tile [f][x] keeps its 14 input broadcasts across
// f (28 + 14 + 1 registers, and LLVM spilled 88); run as [x][f] it keeps the 2 weight vectors
// across x and reads each input value once for both (28 + 2 + 1), as oneDNN's brgemm kernels
// run their rows.
std::vector<int> RegisterRowOrder(const std::vector<int64_t>& inner,
                                  const std::vector<uint64_t>& reads, int64_t element_bytes,
                                  const VectorRegisterFile& file);

// Adds the constraint "<writer>.registers" to `space` (once): LiveRegisters of the register tile
// of `ts` (the inner factors of the writer's tile knobs that `space` defines), its rows in
// RegisterRowOrder, is at most `file.registers`. Nothing for a stage without an accumulator or
// without tiled rows.
void AddRegisterTileConstraint(const TiledStage& ts, const VectorRegisterFile& file,
                               ConfigSpace* space);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_REGISTER_TILE_H_
