// One-time registration of the LLVM backends tunefarm uses (x86, AArch64, NVPTX).
#ifndef TUNEFARM_COMPILER_CODEGEN_LLVM_INIT_H_
#define TUNEFARM_COMPILER_CODEGEN_LLVM_INIT_H_

namespace tunefarm::codegen {

// Thread-safe and idempotent.
void InitializeLLVM();

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_LLVM_INIT_H_
