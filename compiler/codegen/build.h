// Turning lowered kernels into runnable code: an object file, a shared library with the kernel
// C ABI (the artifact the device farm loads), or an in-process JIT module (tests and local use).
#ifndef TUNEFARM_COMPILER_CODEGEN_BUILD_H_
#define TUNEFARM_COMPILER_CODEGEN_BUILD_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/abi/kernel_abi.h"
#include "compiler/codegen/opt_pipeline.h"
#include "compiler/codegen/target.h"
#include "compiler/lower/lowered_func.h"

namespace llvm::orc {
class LLJIT;
}

namespace tunefarm::codegen {

// Kernels compiled into this process. Owns the code: it is freed with the module.
class JitModule {
 public:
  ~JitModule();
  JitModule(const JitModule&) = delete;
  JitModule& operator=(const JitModule&) = delete;

  // NotFound: no kernel of that name.
  absl::StatusOr<TfKernelFn> Lookup(const std::string& name) const;

 private:
  friend absl::StatusOr<std::unique_ptr<JitModule>> BuildJit(const std::vector<lower::LoweredFunc>&,
                                                             const Target&, OptPipeline);
  explicit JitModule(std::unique_ptr<llvm::orc::LLJIT> jit);
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

// Compiles for the host and loads the code. InvalidArgument: a target that is not the host's
// architecture, or what CodegenLLVM rejects.
absl::StatusOr<std::unique_ptr<JitModule>> BuildJit(const std::vector<lower::LoweredFunc>& funcs,
                                                    const Target& target,
                                                    OptPipeline pipeline = OptPipeline::kKernel);

// The object file (ELF) for any LLVM target, including cross targets such as AArch64. A
// library links it with KernelRuntimeObject for the same target.
absl::StatusOr<std::string> BuildObject(const std::vector<lower::LoweredFunc>& funcs,
                                        const Target& target,
                                        OptPipeline pipeline = OptPipeline::kKernel);

// The kernel runtime (kernel_runtime.h) as an object file for `target`, which every library of
// kernels links beside their objects; compiled once per target in a process.
// InvalidArgument: not a CPU target.
absl::StatusOr<std::string> KernelRuntimeObject(const Target& target);

// Textual assembly, for people.
absl::StatusOr<std::string> BuildAssembly(const std::vector<lower::LoweredFunc>& funcs,
                                          const Target& target);

// The stores of a vector register to the stack in x86 assembly as BuildAssembly writes it
// (AT&T: `vmovups %zmm3, 64(%rsp)`): the register allocator's spills.
int CountVectorSpills(const std::string& assembly);

// Optimized LLVM IR, for people.
absl::StatusOr<std::string> BuildLLVMIR(const std::vector<lower::LoweredFunc>& funcs,
                                        const Target& target);

// A shared library's bytes: `objects` (ELF, for `target`; one of them KernelRuntimeObject's)
// linked in process as BuildSharedLibrary links them. Errors: LinkSharedLibrary's.
absl::StatusOr<std::string> LinkLibrary(const std::vector<std::string>& objects,
                                        const Target& target);

// A shared library's bytes: the object and the kernel runtime linked against libgomp and libm
// (linker.h), for the
// host or, with Debian's cross toolchain installed, another Linux architecture (a board's).
// Errors: LinkSharedLibrary's; those of CheckCanLink (an unknown triple, a missing cross
// toolchain) come before the kernel is compiled.
absl::StatusOr<std::string> BuildSharedLibrary(const std::vector<lower::LoweredFunc>& funcs,
                                               const Target& target,
                                               OptPipeline pipeline = OptPipeline::kKernel);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_BUILD_H_
