// The kernel runtime: the code every CPU artifact carries besides its kernels, written once as
// LLVM IR and compiled once per target in a process, then linked into each artifact.
//
// It holds the argument check every kernel entry calls for each argument, the AMX permission
// request of kernels that use tiles (x86-64), and the exported
// functions of the kernel ABI that only read data a kernel module defines:
// `tunefarm_kernel_names`, `tunefarm_kernel_workspaces` and the destructor that frees the kept
// workspaces when a library is unloaded. Generated into every candidate's module, these small
// functions and the inlined checks cost about a seventh of a typical candidate's build (31.9 ->
// 27.3 ms median over bench:scale's 40 dense configs); linked as a ready object they cost
// nothing.
//
// A kernel module defines the data (hidden symbols below) and declares the check; the runtime
// declares the data and defines the functions. The JIT, which links no objects, puts both in
// one module.
#ifndef TUNEFARM_COMPILER_CODEGEN_KERNEL_RUNTIME_H_
#define TUNEFARM_COMPILER_CODEGEN_KERNEL_RUNTIME_H_

#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {

// int32_t tf_check_tensor(const DLTensor* t, int32_t ndim, int32_t dtype_code,
//                         int32_t dtype_bits, const int64_t* shape):
// TF_KERNEL_OK, or the code of the first failed check of one kernel argument.
inline constexpr char kCheckTensorSymbol[] = "tf_check_tensor";
// int32_t tf_tile_permit(void) (x86-64 Linux only): TF_KERNEL_OK once this process may use AMX
// tiles (asked of Linux on the first call), else TF_KERNEL_NO_TILE_STATE. Kernels with AMX
// code call it on entry.
inline constexpr char kTilePermitSymbol[] = "tf_tile_permit";
// const char[]: the module's kernel names, comma-separated, NUL-terminated.
inline constexpr char kKernelNamesDataSymbol[] = "tf_kernel_names_data";
// struct { void** slot; int64_t bytes; }[]: each kept workspace's slot (see EmitAllocate in
// codegen_llvm.cc) and the size of the blocks it holds.
inline constexpr char kWorkspaceTableSymbol[] = "tf_workspace_table";
// int32_t: the number of entries of the table.
inline constexpr char kWorkspaceCountSymbol[] = "tf_workspace_count";

// Whether `tm`'s CPU has `feature` ("+avx512f"), from its CPU and its feature string together: a
// target named by -mcpu alone has an empty feature string.
bool MachineHasFeature(const llvm::TargetMachine& tm, llvm::StringRef feature);

// The attributes of every function generated for `tm`'s CPU: its CPU and features, 512-bit
// vectors where AVX-512 exists, no unwinding.
void SetKernelFunctionAttributes(llvm::Function* fn, const llvm::TargetMachine& tm);

// DLPack's DLTensor: {data, {device_type, device_id}, ndim, {code, bits, lanes}, shape,
// strides, byte_offset}.
llvm::StructType* DLTensorType(llvm::LLVMContext& ctx);

// At the builder's position: returns `rc` from the function unless `ok`, and continues in a
// new block when it is.
void ReturnUnless(llvm::IRBuilder<>& b, llvm::Value* ok, llvm::Value* rc);

// The signature of kCheckTensorSymbol.
llvm::FunctionType* CheckTensorType(llvm::LLVMContext& ctx);

// Adds the runtime's definitions to `m`: the check and the exported ABI functions, reading
// the data symbols (declared here when `m` does not define them).
void EmitKernelRuntime(llvm::Module& m, const llvm::TargetMachine& tm);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_KERNEL_RUNTIME_H_
