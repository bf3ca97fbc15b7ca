// GPU emulation on the host: a lowered GPU kernel becomes a CPU kernel with the same results.
// Loops bound to blockIdx/threadIdx become serial loops and barriers disappear. A stage that
// threads fill cooperatively then fills its whole region in every iteration of the enclosing
// thread loops: slower, but equal, so a GPU schedule's index arithmetic, bound inference and
// tiling can be checked against a reference on a machine without a GPU. (Races that only
// barriers prevent cannot show up serially; the barrier pass has tests of its own.) Barriers
// directly in a thread loop's body split it into one serial loop per phase, so the steps of a
// cross-thread reduction run for all threads before the next step starts.
#ifndef TUNEFARM_COMPILER_LOWER_SERIALIZE_GPU_LOOPS_H_
#define TUNEFARM_COMPILER_LOWER_SERIALIZE_GPU_LOOPS_H_

#include "compiler/lower/lowered_func.h"

namespace tunefarm::lower {

LoweredFunc SerializeGpuLoops(const LoweredFunc& f);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_SERIALIZE_GPU_LOOPS_H_
