// Exit codes by which the sandbox child tells its parent why it died.
#ifndef TUNEFARM_RPC_SERVER_SANDBOX_EXIT_CODES_H_
#define TUNEFARM_RPC_SERVER_SANDBOX_EXIT_CODES_H_

namespace tunefarm {

// The kernel exhausted the address-space limit (crash near the limit, or operator new failed).
inline constexpr int kSandboxExitOutOfMemory = 86;
// The parent was already gone at start-up.
inline constexpr int kSandboxExitOrphaned = 87;

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_SANDBOX_EXIT_CODES_H_
