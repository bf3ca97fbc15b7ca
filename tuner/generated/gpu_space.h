// Schedule spaces generated from a program's stage graph for CUDA targets. A generated GPU
// schedule is one kernel (the GPU verifier refuses temporaries in global memory), so the rules
// pick one of three shapes from the stage graph, after inlining every elementwise stage but the
// output:
//
//   elementwise   the output alone (a stencil, a bias and activation): its axes fused, each
//                 thread computing `per_thread` elements `threads` apart (coalesced);
//   tiled         one reduction whose only reader is the elementwise output of its shape, or an
//                 output that is a reduction (dense + bias + GELU, convolution, pooling): Ansor's
//                 multi-level tiling for GPUs. Each spatial axis of the writer is split into
//                 (block, thread, register) parts, the block parts fused onto blockIdx.x and the
//                 thread parts onto threadIdx.x; the reduction accumulates in registers (a local
//                 cache_write) over its split reduce loops, the inner ones optionally unrolled;
//                 and the tensors it reads are optionally staged in shared memory once per outer
//                 reduce step, filled by the whole block (a padding stage is computed there
//                 instead of inlined);
//   rows          every stage reads its producers row for row along leading axes (softmax,
//                 layer normalization, the attention scores with their softmax; row_fusion.h):
//                 a block per row, every intermediate stage computed into shared memory inside
//                 it across the block's threads, a row statistic (a max, a sum) as a
//                 cross-thread reduction.
//
// A program of any other shape (two reductions in a chain that do not read row for row, a
// layout transform after a reduction) would need a kernel per stage: Unimplemented, naming
// the stages.
//
// Knobs (names prefixed with the stage's name, as on the CPU):
//   elementwise   O.threads {32..1024}, O.per_thread {1, 2, 4};
//   tiled         W.tile_<axis> (block, thread, register), divisors, the thread and register
//                 parts up to 16 (an axis no read depends on alone, a batch: up to 4);
//                 W.tile_<raxis> (outer, inner) divisors up to 16; W.shared {0, 1};
//                 W.unroll {0, 1}. Configs with more than 1,024 threads or 48 KB of shared
//                 memory are refused by the GPU verifier when built (FailedPrecondition);
//   rows          O.threads {32..512}.
#ifndef TUNEFARM_TUNER_GENERATED_GPU_SPACE_H_
#define TUNEFARM_TUNER_GENERATED_GPU_SPACE_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/te/tensor.h"
#include "tuner/space/config_space.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

// Defines the knobs of the program `args` (inputs, then the output) for a CUDA target.
// InvalidArgument: see MakeSketch; Unimplemented: a program that needs more than one kernel.
absl::Status DefineGpuGeneratedSpace(const std::vector<te::Tensor>& args, ConfigSpace* space);

// The program scheduled per `config`, a point of the space DefineGpuGeneratedSpace defined for
// it. Its loops are bound to blockIdx.x and threadIdx.x; lowering checks the launch against
// the target's limits.
absl::StatusOr<Instance> ApplyGpuGeneratedSchedule(const std::vector<te::Tensor>& args,
                                                   const Config& config);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_GPU_SPACE_H_
