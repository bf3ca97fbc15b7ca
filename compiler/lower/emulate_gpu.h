// GPU emulation on the host: a lowered GPU kernel becomes a CPU kernel that runs every block
// in turn and, within a block, every thread in lockstep between barriers, the way a GPU
// synchronizes them (loop fission at barriers, as in MCUDA). Each stretch of code between two
// barriers runs for all threads (threadIdx.z, .y, .x loops) before the next stretch starts;
// loops bound to a thread index become that thread's index (guarded when shorter than the
// launch), loops around barriers must not depend on the thread, and per-thread buffers that
// live across a barrier get one copy per thread. So a GPU schedule's results are checked
// against a reference on a machine without a GPU, and a missing barrier shows up as a wrong
// result (a thread reads shared memory before the others have written it).
#ifndef TUNEFARM_COMPILER_LOWER_EMULATE_GPU_H_
#define TUNEFARM_COMPILER_LOWER_EMULATE_GPU_H_

#include "absl/status/statusor.h"
#include "compiler/lower/lowered_func.h"

namespace tunefarm::lower {

// Unimplemented: a construct the emulation does not handle around a barrier (a loop bound
// depending on the thread, a thread-dependent condition or let around a barrier).
absl::StatusOr<LoweredFunc> EmulateGpuKernel(const LoweredFunc& f);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_EMULATE_GPU_H_
