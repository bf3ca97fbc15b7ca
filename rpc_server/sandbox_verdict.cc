#include "rpc_server/sandbox_verdict.h"

#include <seccomp.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "rpc_server/sandbox_protocol.h"

namespace tunefarm {
namespace {

v1::MeasureResult Result(v1::ErrorClass error, std::string message) {
  v1::MeasureResult r;
  r.set_error(error);
  r.set_message(std::move(message));
  return r;
}

std::string SignalName(int sig) { return absl::StrCat("signal ", sig, " (", strsignal(sig), ")"); }

// How the child ended, in words, for the tail of a message.
std::string HowItEnded(const ChildEnd& end) {
  if (end.killed_at_deadline) {
    return absl::StrCat("killed after the ", absl::FormatDuration(end.timeout),
                        " wall-clock timeout");
  }
  if (end.killed_for_corrupt_channel) {
    return absl::StrCat("killed for a corrupt sandbox channel (", end.channel_error, ")");
  }
  if (WIFSIGNALED(end.wait_status))
    return absl::StrCat("ended by ", SignalName(WTERMSIG(end.wait_status)));
  if (WIFEXITED(end.wait_status))
    return absl::StrCat("exited with status ", WEXITSTATUS(end.wait_status));
  return "ended";
}

}  // namespace

std::string SyscallName(int64_t number) {
  char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, static_cast<int>(number));
  if (name == nullptr) return absl::StrCat("system call ", number);
  std::string out = absl::StrCat(name, " (", number, ")");
  std::free(name);
  return out;
}

v1::MeasureResult ClassifyChildEnd(const ChildEnd& end) {
  const bool exited =
      WIFEXITED(end.wait_status) && !end.killed_at_deadline && !end.killed_for_corrupt_channel;
  const int exit_code = exited ? WEXITSTATUS(end.wait_status) : -1;
  const int signal =
      WIFSIGNALED(end.wait_status) && !end.killed_at_deadline && !end.killed_for_corrupt_channel
          ? WTERMSIG(end.wait_status)
          : 0;
  if (end.forbidden_syscall >= 0 || exit_code == kSandboxExitForbiddenSyscall || signal == SIGSYS) {
    return Result(v1::RUNTIME_ERROR,
                  absl::StrCat("kernel made a forbidden system call",
                               end.forbidden_syscall >= 0
                                   ? absl::StrCat(": ", SyscallName(end.forbidden_syscall))
                                   : "",
                               "; the sandbox refuses process creation, sockets, file writes "
                               "and access to other processes"));
  }
  if (end.allocation_failures > 0 || exit_code == kSandboxExitOutOfMemory) {
    std::string limit = end.memory_limit_mb > 0 ? absl::StrCat(" under the sandbox limit of ",
                                                               end.memory_limit_mb, " MiB")
                                                : "";
    std::string what =
        end.allocation_failures > 0
            ? absl::StrCat("an allocation of ", end.failed_allocation_bytes, " bytes failed", limit)
            : absl::StrCat("operator new failed", limit);
    return Result(v1::OUT_OF_MEMORY,
                  absl::StrCat("kernel ran out of memory (", what, "); it then ", HowItEnded(end)));
  }
  if (end.killed_at_deadline) {
    return Result(v1::TIMEOUT, end.was_stopped
                                   ? absl::StrCat("kernel stopped itself and was ", HowItEnded(end))
                                   : absl::StrCat("kernel ", HowItEnded(end)));
  }
  if (signal == SIGXCPU) {
    return Result(v1::TIMEOUT,
                  "kernel exceeded the sandbox's CPU-time limit (SIGXCPU: its threads used more "
                  "CPU time than the timeout allows on every core)");
  }
  if (signal == SIGKILL) {
    return Result(v1::RUNTIME_ERROR,
                  "kernel was killed by a SIGKILL that the worker did not send (the system's OOM "
                  "killer or an operator)");
  }
  if (end.killed_for_corrupt_channel) {
    return Result(v1::RUNTIME_ERROR, absl::StrCat("kernel ", HowItEnded(end),
                                                  ": it wrote to the worker's private channel"));
  }
  if (signal != 0) {
    return Result(v1::RUNTIME_ERROR, absl::StrCat("kernel crashed with ", SignalName(signal)));
  }
  if (exit_code == kSandboxExitConfinementFailed) {
    return Result(v1::RUNTIME_ERROR,
                  "the sandbox could not confine itself (no_new_privs or seccomp refused) and "
                  "runs no kernel; check the worker's kernel and container settings");
  }
  return Result(v1::RUNTIME_ERROR,
                absl::StrCat("sandbox exited with status ", exit_code, ": ", end.channel_error));
}

}  // namespace tunefarm
