// Barrier insertion for GPU kernels: shared allocations move to the top of the kernel (they
// live as long as the block), then every run of statements that writes "shared" buffers is
// fenced by __syncthreads() before it (the previous iteration's readers are done: no
// write-after-read) and before the first later statement that reads shared memory (the writes
// are visible to it), including at the end of a loop body whose next iteration reads them;
// then barriers with no shared-memory access since the previous one are dropped. Loops bound to
// thread indices are implicit on a GPU (every thread runs the whole body), so a barrier inside
// them is reached by every thread of the block; one under a condition is rejected by the GPU
// verifier. A kernel without thread bindings is returned unchanged.
#ifndef TUNEFARM_COMPILER_LOWER_INSERT_BARRIERS_H_
#define TUNEFARM_COMPILER_LOWER_INSERT_BARRIERS_H_

#include "compiler/ir/ir.h"

namespace tunefarm::lower {

// The name of the intrinsic call that stands for __syncthreads().
inline constexpr char kBarrierIntrinsic[] = "syncthreads";

ir::Stmt MakeBarrier();
bool IsBarrier(const ir::Stmt& s);
// Whether an evaluated expression is the barrier call.
bool IsBarrierCall(const ir::Expr& value);

ir::Stmt InsertBarriers(const ir::Stmt& s);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_INSERT_BARRIERS_H_
