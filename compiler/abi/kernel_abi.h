/* The C ABI of a kernel built by tunefarm.
 *
 * An artifact (a shared library, or a module in the in-process JIT) exports one function per
 * kernel, with C linkage and this signature:
 *
 *   int32_t NAME(DLTensor* const* args, int32_t num_args);
 *
 * `args` holds the kernel's tensors in the order of its definition: inputs first, then
 * outputs. Each DLTensor describes host memory (kDLCPU) or device memory (kDLCUDA) with its
 * shape, strides (NULL means compact row-major) and dtype, exactly as DLPack defines them.
 * The kernel checks the count, rank, shape and dtype of every argument against what it was
 * compiled for before touching memory, and returns one of the TF_KERNEL_* codes below; it
 * never aborts the process on a bad argument.
 *
 * Every artifact also exports `const char* tunefarm_kernel_names(void)`: a NUL-terminated,
 * comma-separated list of the kernel names it contains, so a loader can find them without
 * metadata files.
 *
 * A CPU artifact also exports
 * `int32_t tunefarm_kernel_workspaces(void** blocks, int64_t* bytes, int32_t capacity)`, which
 * lists the heap workspaces its kernels keep between calls (temporaries too large for the
 * stack, e.g. a Winograd convolution's transformed tiles): it writes up to `capacity` entries,
 * each a workspace's current block (NULL before the first call) and its size in bytes, and
 * returns how many workspaces there are (0 for most kernels; older artifacts without
 * workspaces lack the symbol). A worker timing a kernel cold evicts these too, as a layer
 * inside a network finds them.
 *
 * This header is plain C with no dependency beyond DLPack, so a device worker, a deployed
 * application and the compiler share it without linking each other.
 */
#ifndef TUNEFARM_COMPILER_ABI_KERNEL_ABI_H_
#define TUNEFARM_COMPILER_ABI_KERNEL_ABI_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of a kernel call. */
enum {
  TF_KERNEL_OK = 0,
  /* num_args differs from the kernel's parameter count. */
  TF_KERNEL_BAD_ARG_COUNT = 1,
  /* A tensor's rank or a dimension differs from the compiled shape. */
  TF_KERNEL_BAD_SHAPE = 2,
  /* A tensor's dtype differs from the compiled dtype. */
  TF_KERNEL_BAD_DTYPE = 3,
  /* Non-compact strides where the kernel needs compact row-major memory. */
  TF_KERNEL_BAD_STRIDES = 4,
  /* A workspace allocation inside the kernel failed. */
  TF_KERNEL_OUT_OF_MEMORY = 5,
  /* A NULL args array, or a NULL tensor, data or shape pointer. */
  TF_KERNEL_NULL_ARG = 6,
  /* A tensor on a device the kernel was not compiled for (e.g. GPU memory for a CPU kernel). */
  TF_KERNEL_BAD_DEVICE = 7,
  /* The kernel uses AMX tiles and the operating system refused their state to this process
     (Linux grants it on request from 5.16 on: arch_prctl(ARCH_REQ_XCOMP_PERM)). */
  TF_KERNEL_NO_TILE_STATE = 8,
};

/* Signature of every exported kernel. No two of `args` may overlap: the code generator tells
   LLVM that distinct buffers never alias (one alias scope per buffer). */
typedef int32_t (*TfKernelFn)(DLTensor* const* args, int32_t num_args);

/* Name of the symbol that lists the kernels of an artifact. */
#define TF_KERNEL_NAMES_SYMBOL "tunefarm_kernel_names"

/* Signature of TF_KERNEL_NAMES_SYMBOL. */
typedef const char* (*TfKernelNamesFn)(void);

/* Name of the symbol that lists a CPU artifact's kept workspaces. */
#define TF_KERNEL_WORKSPACES_SYMBOL "tunefarm_kernel_workspaces"

/* Signature of TF_KERNEL_WORKSPACES_SYMBOL. */
typedef int32_t (*TfKernelWorkspacesFn)(void** blocks, int64_t* bytes, int32_t capacity);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TUNEFARM_COMPILER_ABI_KERNEL_ABI_H_ */
