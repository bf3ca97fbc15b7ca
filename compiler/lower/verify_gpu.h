// The GPU verifier: reads a lowered kernel's launch configuration off its loops bound to
// blockIdx/threadIdx and rejects kernels that a GPU cannot run or would run wrongly:
//   - more threads per block, or larger block/grid dimensions, than the target allows;
//   - more static shared memory per block, or local memory per thread, than the limits;
//   (the launch dimension of an index is the largest extent of the loops bound to it; shorter
//   loops run under `index < extent`)
//   - a store to a kernel argument that not every thread index distinguishes (threads would
//     race on it: bind the output's loops to every index the launch uses);
//   - a barrier under a condition or inside a loop shorter than its index's launch dimension
//     (threads that skip it deadlock the block);
//   - a global or shared vector access wider than the widest load/store (16 bytes);
//   - a temporary in global memory (it would need its own kernel launch);
//   - a tensorized (WMMA) nest inside a threadIdx.x loop or a condition, or a launch whose
//     threadIdx.x is not exactly one warp (32) when there are such nests.
// Errors are FailedPrecondition with a message naming the loop, buffer or limit.
#ifndef TUNEFARM_COMPILER_LOWER_VERIFY_GPU_H_
#define TUNEFARM_COMPILER_LOWER_VERIFY_GPU_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "compiler/lower/lowered_func.h"

namespace tunefarm::lower {

// Resource limits of one GPU architecture.
struct GpuLimits {
  int64_t max_threads_per_block = 1024;
  std::array<int64_t, 3> max_block = {1024, 1024, 64};
  std::array<int64_t, 3> max_grid = {2147483647, 65535, 65535};
  // Static shared memory (dynamic shared memory, which sm_80+ allow up to 163/227 KB, needs an
  // opt-in at launch; kernels here use static shared memory only).
  int64_t max_shared_bytes = 48 * 1024;
  // Local arrays per thread; beyond this they spill to slow local memory.
  int64_t max_local_bytes = 4096;
  int64_t max_vector_bytes = 16;

  // Limits of "sm_XX". InvalidArgument: not of that form or older than sm_50.
  static absl::StatusOr<GpuLimits> ForArch(const std::string& arch);
};

// How a kernel is launched.
struct GpuLaunch {
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  int64_t shared_bytes = 0;  // Static shared memory per block.
  int64_t local_bytes = 0;   // Local arrays per thread.

  int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
  int64_t blocks() const { return grid[0] * grid[1] * grid[2]; }
};

// The launch dimension of each GPU index bound in `body` ("blockIdx.x" … "threadIdx.z"; not
// vthread): the largest extent of the loops bound to it.
std::map<std::string, int64_t> IndexExtents(const ir::Stmt& body);

// The launch of `f` (lowered from a schedule with bound loops). FailedPrecondition: see above.
absl::StatusOr<GpuLaunch> VerifyGpuKernel(const LoweredFunc& f, const GpuLimits& limits);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_VERIFY_GPU_H_
