// A C source printer for lowered kernels: readable C99 (with GCC's _Float16 for float16) that
// shows what a schedule turned into, and that a C compiler can build to cross-check the LLVM
// backend.
//
//   int32_t gemm(float* restrict A, float* restrict B, float* restrict C) {
//     for (int32_t i_o = 0; i_o < 8; ++i_o) { ... }
//     return 0;
//   }
//
// The function takes one data pointer per kernel argument, in LoweredFunc::args order (inputs
// first), with compact row-major layout and the shapes the kernel was lowered for; it does no
// argument checking (that is the DLTensor ABI's job, see compiler/abi/kernel_abi.h). It returns
// 0, or 5 (TF_KERNEL_OUT_OF_MEMORY) when a heap temporary cannot be allocated.
//
// Printing rules: vector statements become small loops over their lanes (`for (tf_lane ...)`,
// each lane the scalar expression at that lane); parallel loops carry `#pragma omp parallel
// for` (serial when compiled without -fopenmp); unrolled and vectorized loops that lowering
// kept as loops print as plain loops; allocations up to 64 KiB are local arrays, larger ones
// malloc/free. Names are C identifiers made unique per variable and buffer ("i.o" → "i_o").
#ifndef TUNEFARM_COMPILER_CODEGEN_CODEGEN_C_H_
#define TUNEFARM_COMPILER_CODEGEN_CODEGEN_C_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/lower/lowered_func.h"

namespace tunefarm::codegen {

// The C translation unit (includes, helpers, one function named func.name).
// InvalidArgument: IR the CPU cannot run (a loop bound to a GPU thread, an unlowered
// reduction, a dtype C has no type for).
absl::StatusOr<std::string> PrintC(const lower::LoweredFunc& func);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_CODEGEN_C_H_
