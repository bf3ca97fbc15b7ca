// GPU code generation: a lowered kernel whose loops are bound to blockIdx/threadIdx becomes a
// PTX kernel through LLVM's NVPTX backend.
//
//   - Every loop bound to a GPU index becomes that index (llvm.nvvm.read.ptx.sreg.*): loops
//     bound to one index at several depths all read the same hardware index; "vthread" loops
//     stay serial loops.
//   - Arguments are global-memory pointers (address space 1), inputs `noalias readonly` so
//     loads can use the read-only data path, in ABI order (inputs, then outputs).
//   - "shared" buffers are static shared-memory arrays (address space 3), "local" buffers
//     per-thread arrays that LLVM promotes to registers when their indices are constant.
//   - Barriers become llvm.nvvm.barrier0; exp/log use the approximate ex2/lg2 instructions.
//   - Contiguous vector accesses get the alignment the index provably has (up to 16 bytes,
//     so float32x4 becomes one ld.global.v4.f32); device allocations are assumed 16-aligned.
//   - The launch configuration is recorded as maxntid annotations too.
#ifndef TUNEFARM_COMPILER_CODEGEN_CODEGEN_NVPTX_H_
#define TUNEFARM_COMPILER_CODEGEN_CODEGEN_NVPTX_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "compiler/lower/lowered_func.h"
#include "compiler/lower/verify_gpu.h"

namespace tunefarm::codegen {

// A compiled GPU kernel.
struct GpuKernel {
  std::string ptx;    // PTX assembly of one module holding the kernel.
  std::string entry;  // The kernel's symbol (the lowered function's name).
  std::string arch;   // "sm_90".
  lower::GpuLaunch launch;
};

// Verifies `f` against the limits of `target` (see lower/verify_gpu.h) and compiles it.
// InvalidArgument: not a cuda target, a construct the GPU backend cannot emit.
// FailedPrecondition: what the GPU verifier rejects.
absl::StatusOr<GpuKernel> BuildGpuKernel(const lower::LoweredFunc& f, const Target& target);

// Several kernels in one PTX module (an exported kernel library).
struct GpuLibrary {
  std::string ptx;
  std::string arch;
  std::vector<GpuKernel> kernels;  // `ptx` left empty in each; entry and launch set.
};
// As BuildGpuKernel, for every function; InvalidArgument also for duplicate names.
absl::StatusOr<GpuLibrary> BuildGpuLibrary(const std::vector<lower::LoweredFunc>& funcs,
                                           const Target& target);

// The optimized LLVM IR of the kernel, for people.
absl::StatusOr<std::string> BuildGpuLLVMIR(const lower::LoweredFunc& f, const Target& target);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_CODEGEN_NVPTX_H_
