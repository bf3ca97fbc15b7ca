// How the `tunefarm_sandbox` child confines itself before it loads any kernel.
//
// A kernel is untrusted native code: anyone holding a client credential can make a worker run
// it. Whatever it does should cost at most its own child process. In order, the child:
//   1. closes every inherited descriptor but 0-2 (/dev/null), the channel and the status page;
//   2. dies with its parent (PR_SET_PDEATHSIG) and never dumps core;
//   3. caps its address space (RLIMIT_AS) and, for CPU kernels, the size of files it may
//      write (RLIMIT_FSIZE = 0);
//   4. for CPU kernels, moves into a new user namespace with an empty network namespace, so
//      it has no network interfaces and no capabilities over anything outside (where user
//      namespaces are refused and it runs as root, a network namespace alone); when neither
//      is allowed the failure is recorded and the seccomp filter still refuses every socket;
//   5. drops every capability it still has and sets no_new_privs;
//   6. installs a seccomp filter (libseccomp) that traps what no kernel needs: creating
//      processes (fork, exec, clone of anything but a thread), sockets (CPU: all; CUDA: all but
//      AF_UNIX, which the driver may use), signals to other processes, ptrace and reading or
//      writing other processes' memory, io_uring (it bypasses the filter), mounts, namespaces,
//      modules, BPF, perf events, keyrings, raising resource limits other than the CPU time,
//      changing the parent-death signal and, for CPU kernels, opening, creating, renaming,
//      linking or deleting files for writing.
// A trapped call ends the child with kSandboxExitForbiddenSyscall after writing the call's
// number on the status page, so the worker reports which call was refused.
//
// The CUDA driver needs device files opened read-write, a JIT cache on disk and threads of its
// own, so CUDA children keep file writes and skip the namespaces (step 4); everything else
// applies to them too.
#ifndef TUNEFARM_RPC_SERVER_SANDBOX_CONFINEMENT_H_
#define TUNEFARM_RPC_SERVER_SANDBOX_CONFINEMENT_H_

#include <cstdint>

#include "absl/status/status.h"
#include "rpc_server/sandbox_protocol.h"

namespace tunefarm {

struct ConfinementOptions {
  // Address-space limit, MiB; 0 for none (CUDA: the driver maps far more than any limit).
  int64_t memory_limit_mb = 0;
  // New user + network namespaces (step 4). Off for CUDA.
  bool isolate_network = true;
  // Refuse opening files for writing and every call that changes the file system. Off for CUDA.
  bool forbid_file_writes = true;
  // Allow AF_UNIX sockets (the CUDA driver's helpers). Off for CPU.
  bool allow_unix_sockets = false;
  // The seccomp filter allows only the system calls kernels and the harness need (memory,
  // threads, time, read-only files, the frame channel) and traps every other. Off for CUDA,
  // whose driver's needs are not known (no GPU has run this code): a denylist of dangerous
  // calls applies there instead.
  bool syscall_allowlist = true;
  // The child runs under a user-mode emulator (qemu-user, see emulation.h). qemu-user refuses
  // seccomp (a filter would judge the emulator's own host calls, not the guest's), so the child
  // goes on without the filter and records kConfinedEmulated instead of kConfinedSeccomp;
  // everything else above is still attempted. Only set from DetectHostEmulation(), which is
  // false on real hardware, where a missing filter still ends the child.
  bool emulated = false;
};

// Confines the calling process as described above; records what is in force in
// `page->confinement` (and a namespace failure in `page->network_namespace_errno`). Must run
// single-threaded (unshare of a user namespace requires it), before any kernel is loaded.
// Errors: FailedPrecondition when no_new_privs or (unless `options.emulated`) the seccomp
// filter cannot be set up: the child must then refuse to run kernels.
absl::Status ConfineSandbox(const ConfinementOptions& options, SandboxStatusPage* page);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_SANDBOX_CONFINEMENT_H_
