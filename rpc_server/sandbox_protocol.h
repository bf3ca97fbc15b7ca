// What the worker and its `tunefarm_sandbox` child agree on besides the SandboxRequest /
// SandboxResponse frames: which descriptors the child gets, the exit codes by which it says
// why it died, and the status page through which it reports events that must survive its death.
//
// Descriptors of the child (everything else is closed):
//   0, 1, 2              /dev/null: a kernel that prints cannot corrupt the frame channel,
//                        and cannot flood the worker's log;
//   kSandboxChannelFd    the frame channel (one end of a socketpair);
//   kSandboxStatusFd     a one-page shared memory file (memfd) holding a SandboxStatusPage.
//
// The status page is written by the child and read by the parent after each request, also
// after the child died. The kernel can write it too: a lie there only changes the error class
// of the kernel's own failed measurement, and the parent never trusts it for anything else.
#ifndef TUNEFARM_RPC_SERVER_SANDBOX_PROTOCOL_H_
#define TUNEFARM_RPC_SERVER_SANDBOX_PROTOCOL_H_

#include <atomic>
#include <cstdint>

namespace tunefarm {

// The frame channel's descriptor in the child.
inline constexpr int kSandboxChannelFd = 3;
// The status page's descriptor in the child.
inline constexpr int kSandboxStatusFd = 4;

// The kernel exhausted the address-space limit (operator new failed, or it crashed after an
// allocation failed).
inline constexpr int kSandboxExitOutOfMemory = 86;
// The parent was already gone at start-up.
inline constexpr int kSandboxExitOrphaned = 87;
// The kernel made a system call that the seccomp filter forbids (the status page names it).
inline constexpr int kSandboxExitForbiddenSyscall = 88;
// The child could not confine itself (no_new_privs or the seccomp filter failed): it refuses
// to run kernels rather than run them unconfined.
inline constexpr int kSandboxExitConfinementFailed = 89;

// Bits of SandboxStatusPage::confinement: what the child managed to set up, so that the
// parent can log what is in force.
enum SandboxConfinement : uint32_t {
  kConfinedSeccomp = 1u << 0,           // the seccomp filter is installed
  kConfinedNetworkNamespace = 1u << 1,  // the child has its own, empty network namespace
  kConfinedUserNamespace = 1u << 2,     // ...inside its own user namespace (no capabilities)
  kConfinedNoFileWrites = 1u << 3,      // the filter refuses opening files for writing
  kConfinedEmulated = 1u << 4,          // under qemu-user: no seccomp filter could be installed
};

// The shared page. Fields are lock-free atomics (the child may die between any two stores);
// the parent resets the per-request fields before each request.
struct SandboxStatusPage {
  // SandboxConfinement bits, set once by the child at start-up.
  std::atomic<uint32_t> confinement;
  // errno of a failed unshare() of the network namespace (0 if it worked or was not tried).
  std::atomic<int32_t> network_namespace_errno;
  // Per request: allocations that failed for lack of memory (malloc family, operator new).
  std::atomic<uint64_t> allocation_failures;
  // Per request: size of the first failed allocation, bytes.
  std::atomic<uint64_t> failed_allocation_bytes;
  // Per request: number of the forbidden system call that ended the child (-1 for none).
  std::atomic<int64_t> forbidden_syscall;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free,
              "the status page needs lock-free atomics");

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_SANDBOX_PROTOCOL_H_
