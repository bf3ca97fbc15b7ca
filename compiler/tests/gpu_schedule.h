// A shared-memory tiled GPU matmul schedule for compiler tests (the tuner's templates have
// their own, with knobs).
#ifndef TUNEFARM_COMPILER_TESTS_GPU_SCHEDULE_H_
#define TUNEFARM_COMPILER_TESTS_GPU_SCHEDULE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "compiler/schedule/schedule.h"
#include "compiler/tests/programs.h"

namespace tunefarm::testing {

struct GpuMatmulTiles {
  int64_t block_y = 16, block_x = 32;  // Output tile of a block.
  int64_t thread_y = 2, thread_x = 4;  // Output tile of a thread (registers).
  int64_t tile_k = 8;                  // Reduction step staged in shared memory.
  int64_t vector = 1;                  // Lanes of the shared-memory fill's loads.
};

// Schedules matmul program `p` (C = A·B) on `sch`: C tiled over blocks and threads, a "local"
// accumulator per thread, A and B staged through "shared" by cooperative fetching.
absl::Status ScheduleGpuMatmul(const Program& p, schedule::Schedule* sch, const GpuMatmulTiles& t);

}  // namespace tunefarm::testing

#endif  // TUNEFARM_COMPILER_TESTS_GPU_SCHEDULE_H_
