// LLVM IR generation for lowered CPU kernels.
//
// Each LoweredFunc becomes an exported function with the kernel C ABI
// (compiler/abi/kernel_abi.h): it validates every DLTensor argument against the compiled
// shapes and dtypes (a call of the kernel runtime's check per argument), then runs the loop
// nest. Parallel loops are outlined and run through
// libgomp's GOMP_parallel: a mature thread pool that every Debian system already has (gcc's
// runtime), that reuses its threads across calls, and that a deployed kernel library or a
// device worker resolves with the ordinary dynamic loader, so artifacts need no runtime of
// ours. Vector IR nodes map to LLVM vector types; the module is optimized (opt_pipeline.h) for the
// target CPU with floating-point contraction (FMA) allowed and no reassociation.
#ifndef TUNEFARM_COMPILER_CODEGEN_CODEGEN_LLVM_H_
#define TUNEFARM_COMPILER_CODEGEN_CODEGEN_LLVM_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/codegen/opt_pipeline.h"
#include "compiler/codegen/target.h"
#include "compiler/lower/lowered_func.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {

// A target machine for `target`. InvalidArgument: a target LLVM cannot create.
absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const Target& target);

// Generates the module of `funcs`, not optimized, with the data the kernel runtime reads
// (kernel_runtime.h). With `outline_loop_nests`, each loop nest at the top of a kernel becomes
// a function of its own called from the kernel (as parallel loops always are), which
// SplitOutlinedFunctions (module_split.h) can then compile apart. InvalidArgument: as
// CodegenLLVM.
absl::StatusOr<std::unique_ptr<llvm::Module>> EmitCpuModule(
    const std::vector<lower::LoweredFunc>& funcs, llvm::TargetMachine& tm,
    llvm::LLVMContext& context, bool outline_loop_nests);

// Generates and optimizes a module holding every function and the data the kernel runtime
// reads (kernel_runtime.h); with `with_runtime`, the runtime too (a module that runs alone,
// as in the JIT), otherwise the module is linked with KernelRuntimeObject (build.h).
// InvalidArgument: duplicate kernel names, an IR construct the CPU backend cannot run (a loop
// bound to a GPU thread index, an unlowered reduction).
absl::StatusOr<std::unique_ptr<llvm::Module>> CodegenLLVM(
    const std::vector<lower::LoweredFunc>& funcs, llvm::TargetMachine& tm,
    llvm::LLVMContext& context, OptPipeline pipeline = OptPipeline::kKernel,
    bool with_runtime = false);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_CODEGEN_LLVM_H_
