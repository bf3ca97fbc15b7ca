// Schedule spaces generated from a program's stage graph (see sketch.h for the rules): an
// ordinary ConfigSpace whose knobs are the sketch's tile sizes, inlining choices, unrolling
// and parallelism, so every search strategy, the cost model's features and replay work on it
// unchanged.
//
// Knobs, for each tiled stage W (names prefixed "W."):
//   tile_<axis>     the writer's spatial axes split (outer, inner): the last axis, vectorized,
//                   by any power of two up to 64, and the one before it (register rows) by a
//                   power of two, 6, 12 or a divisor, up to 16 (non-divisors leave a tail whose
//                   loop stays out of the fused loop, so loop partitioning peels it); outer
//                   axes by divisors up to 8 (only when there is an accumulator);
//   tile_<raxis>    each reduction axis split (outer, inner) by divisors up to 16
//                   (tile_r_<raxis> when a spatial axis has the same name);
//   pack_<input>    read an input through a copy packed for the vector axis (pack_input.h):
//                   0 no, 1 packed in the kernel on every call, for a weight 2, packed
//                   once ahead of time (the kernel's argument is then the packed copy), and
//                   where the reduction has a batch (a leading untiled axis of more than one
//                   point: a batched matmul's) 3, packed on every call one batch at a time
//                   inside the batch loop, which then stays out of the fused parallel loop;
//   unroll          unroll the inner reduction loops (0/1);
//   order           the outer tile loops' order (rank 2 and more): 0 as the axes, 1 the last
//                   two swapped, and, where the reduction has four axes or more and reuses
//                   values along the second (a channel-blocked convolution's output channels),
//                   2 the second axis's loop innermost, so that every block of output channels
//                   is computed over one tile of pixels while its input is in L1;
// for each elementwise stage P computed at the top level because one reduction reads it (a
// padding): `P.at`, 0 computed over the whole tensor first, 1 per tile of the reduction, and
// for a padding read by the reduction that holds most of the program's work 2, inlined into
// the reduction with its border tiles peeled off and the taps in the padding dropped
// (padding_axes.h);
// for each tiled stage with register rows, the constraint `W.registers` (register_tile.h): its
// register tile's accumulators fit the target's vector register file (the search keeps to it);
// and for the program: `parallel` (fuse each writer's outer loops and run them on all cores),
// and, where every stage reads its producers row for row along some leading axes (a softmax, a
// layer normalization; see row_fusion.h), `<output>.fuse_rows`: 0, or compute every stage one
// block of that many rows at a time inside the output's (parallel) block loop, so the
// intermediate rows stay in cache.
#ifndef TUNEFARM_TUNER_GENERATED_GENERATED_SPACE_H_
#define TUNEFARM_TUNER_GENERATED_GENERATED_SPACE_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/schedule/schedule.h"
#include "compiler/te/tensor.h"
#include "tuner/space/config_space.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

// Defines the generated knobs of the program `args` (inputs, then the output) on `target`;
// `weights` are the inputs that are constant across calls (they may be packed ahead of time).
// A cuda target gets the GPU rules of gpu_space.h instead. InvalidArgument: see MakeSketch;
// Unimplemented: a cuda target and a program that would need more than one kernel.
absl::Status DefineGeneratedSpace(const std::vector<te::Tensor>& args,
                                  const codegen::Target& target, ConfigSpace* space,
                                  const std::vector<te::Tensor>& weights = {});

// The program scheduled per `config`, a point of the space DefineGeneratedSpace defined for
// the same program, target and weights. The kernel's arguments are `args` again except the
// output, which is rebuilt when a pack knob rewrote the program, and the weights packed ahead
// of time, whose packed copies take their place (see `prepacks`). Internal: a config from
// another space; InvalidArgument or FailedPrecondition: a schedule primitive refused the
// config.
absl::StatusOr<Instance> ApplyGeneratedSchedule(const std::vector<te::Tensor>& args,
                                                const codegen::Target& target, const Config& config,
                                                const std::vector<te::Tensor>& weights = {});

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_GENERATED_SPACE_H_
