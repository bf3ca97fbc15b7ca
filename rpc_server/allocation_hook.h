// Allocation failures of the sandbox child, recorded as events on its status page.
//
// The `tunefarm_sandbox` binary defines the malloc family itself (allocation_hook.cc): each
// entry point forwards to glibc's allocator and, when it returns null for lack of memory,
// counts the failure on the status page before returning. Kernels are dlopen'ed into the child,
// so their malloc calls bind to these definitions (an executable's symbols come first in the
// global lookup scope). The parent then knows that memory ran out, whatever the kernel did
// next: crashed on the null pointer, returned an error, looped until the timeout, or was
// killed by the CPU limit. Memory exhaustion is thus an event, not a guess from which limit
// fired first.
#ifndef TUNEFARM_RPC_SERVER_ALLOCATION_HOOK_H_
#define TUNEFARM_RPC_SERVER_ALLOCATION_HOOK_H_

#include <cstddef>

#include "rpc_server/sandbox_protocol.h"

namespace tunefarm {

// Starts recording failed allocations on `page` (null stops). Call once, single-threaded,
// before any kernel is loaded.
void RecordAllocationFailuresOn(SandboxStatusPage* page);

// Records one failed allocation of `bytes` (also for operator new's handler). Async-signal-safe.
void NoteAllocationFailure(size_t bytes);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_ALLOCATION_HOOK_H_
