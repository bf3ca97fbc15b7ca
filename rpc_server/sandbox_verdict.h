// Why a sandbox child ended, turned into a measurement's error class and message.
//
// The class follows events, never which limit happened to fire first, so it does not depend on
// the machine's speed:
//   - a forbidden system call (the seccomp filter trapped it)           -> RUNTIME_ERROR
//   - any failed allocation during the request (status page), or the
//     child's out-of-memory exit, whatever ended the child afterwards   -> OUT_OF_MEMORY
//   - killed by the worker at the wall-clock deadline (also a child that
//     had stopped itself), or SIGXCPU from the CPU-time backstop         -> TIMEOUT
//   - SIGKILL that the worker did not send (the system's OOM killer, an
//     operator)                                                          -> RUNTIME_ERROR
//   - any other signal, exit status, or a corrupt frame channel          -> RUNTIME_ERROR
#ifndef TUNEFARM_RPC_SERVER_SANDBOX_VERDICT_H_
#define TUNEFARM_RPC_SERVER_SANDBOX_VERDICT_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "proto/measure.pb.h"

namespace tunefarm {

// What the worker knows about a child that ended during a request.
struct ChildEnd {
  // The status from waitpid.
  int wait_status = 0;
  // The worker killed it because the wall-clock deadline passed.
  bool killed_at_deadline = false;
  // At the deadline, the child was stopped (it had sent itself SIGSTOP or similar).
  bool was_stopped = false;
  // The worker killed it because the frame channel was corrupt (it wrote garbage there).
  bool killed_for_corrupt_channel = false;
  // The request's wall-clock timeout.
  absl::Duration timeout;
  // What the channel reported (EOF, corrupt frame...), for the message.
  std::string channel_error;
  // From the status page: failed allocations in this request, the first one's size, and the
  // forbidden system call that ended the child (-1 for none).
  uint64_t allocation_failures = 0;
  uint64_t failed_allocation_bytes = 0;
  int64_t forbidden_syscall = -1;
  // The sandbox's address-space limit, MiB (0: none), for the message.
  int64_t memory_limit_mb = 0;
};

// The result to report for a request whose child ended as `end` says.
v1::MeasureResult ClassifyChildEnd(const ChildEnd& end);

// "name (number)" of a system call on this architecture, or "system call NUMBER".
std::string SyscallName(int64_t number);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_SANDBOX_VERDICT_H_
