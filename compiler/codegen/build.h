// Turning lowered kernels into runnable code: an object file, a shared library with the kernel
// C ABI (the artifact the device farm loads), or an in-process JIT module (tests and local use).
#ifndef TUNEFARM_COMPILER_CODEGEN_BUILD_H_
#define TUNEFARM_COMPILER_CODEGEN_BUILD_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/abi/kernel_abi.h"
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
                                                             const Target&);
  explicit JitModule(std::unique_ptr<llvm::orc::LLJIT> jit);
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

// Compiles for the host and loads the code. InvalidArgument: a target that is not the host's
// architecture, or what CodegenLLVM rejects.
absl::StatusOr<std::unique_ptr<JitModule>> BuildJit(const std::vector<lower::LoweredFunc>& funcs,
                                                    const Target& target);

// The object file (ELF) for any LLVM target, including cross targets such as AArch64.
absl::StatusOr<std::string> BuildObject(const std::vector<lower::LoweredFunc>& funcs,
                                        const Target& target);

// Textual assembly, for people.
absl::StatusOr<std::string> BuildAssembly(const std::vector<lower::LoweredFunc>& funcs,
                                          const Target& target);

// Optimized LLVM IR, for people.
absl::StatusOr<std::string> BuildLLVMIR(const std::vector<lower::LoweredFunc>& funcs,
                                        const Target& target);

// A shared library's bytes: the object linked with the system C compiler driver (`cc`)
// against libgomp and libm. Only for the host's architecture (there is no cross linker).
// Internal: the linker failed (its message is included). FailedPrecondition: no `cc`.
absl::StatusOr<std::string> BuildSharedLibrary(const std::vector<lower::LoweredFunc>& funcs,
                                               const Target& target);

// Links object files into a shared library at `out_path`. FailedPrecondition: no `cc`.
// Internal: the linker failed (its message is included).
absl::Status LinkSharedLibrary(const std::vector<std::string>& object_paths,
                               const std::string& out_path);

// Compiles a generated C11 source file (a compiled model's runner, graph/emit_runner.h) into a
// position-independent object at `object_path`, with the system C compiler driver. Errors as
// LinkSharedLibrary's.
absl::Status CompileCSource(const std::string& source_path, const std::string& object_path);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_BUILD_H_
