// The worker's side of the sandbox: a freshly exec'd `tunefarm_sandbox` child (never a fork of
// the multithreaded gRPC process), kept alive across measurements, restarted when it dies.
// The child gets /dev/null for fds 0-2, the frame channel and a shared status page
// (sandbox_protocol.h), and an allowlisted environment (sandbox_environment.h); it confines
// itself (sandbox_confinement.h). The parent enforces the wall-clock timeout and classifies
// the child's end from events (sandbox_verdict.h); a child that announces its exit in its
// answer, after a CUDA fault, is reaped quietly.
//
// Starting a sandbox makes the calling process non-dumpable (PR_SET_DUMPABLE 0), so that a
// kernel cannot read the worker's memory or its environment (/proc/PID/environ holds the
// token) even though both run as the same user.
#ifndef TUNEFARM_RPC_SERVER_SANDBOX_PROCESS_H_
#define TUNEFARM_RPC_SERVER_SANDBOX_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "proto/sandbox.pb.h"
#include "rpc_server/sandbox_protocol.h"
#include "rpc_server/sandbox_verdict.h"

namespace tunefarm {

struct SandboxOptions {
  // Path of the tunefarm_sandbox binary (see FindSandboxBinary).
  std::string binary;
  // Address-space limit of the child (RLIMIT_AS); 0 for none. With a CUDA device it only
  // bounds the tensors of a request (the driver cannot run under RLIMIT_AS).
  int64_t memory_limit_mb = 4096;
  // What the child measures on: "cpu" (or empty) for host kernels, "cuda:N" for GPU kernels
  // (see device_spec.h); passed as the child's second argument.
  std::string device;
  // Threads a kernel may use (the child's OMP_NUM_THREADS); 0 leaves the worker's own setting.
  int kernel_threads = 0;
  // Program and arguments the child is exec'd through, before `binary`: empty on real hardware;
  // under qemu-user the emulator (EmulatorExecPrefix in emulation.h), since the host kernel
  // cannot exec a guest binary without binfmt_misc. exec_prefix[0] must be a path.
  std::vector<std::string> exec_prefix;
  // This worker detected that it runs under qemu-user (DetectHostEmulation in emulation.h).
  // Only then may a child go without the seccomp filter: the child is told (its third
  // argument, "emulated"), and a child that reports kConfinedEmulated while this is false is
  // killed and its answer refused, so on real hardware no kernel runs unfiltered.
  bool emulated = false;
};

// Not thread-safe: one caller at a time (the worker's measurement loop).
class SandboxProcess {
 public:
  explicit SandboxProcess(SandboxOptions options) : options_(std::move(options)) {}
  ~SandboxProcess();
  SandboxProcess(const SandboxProcess&) = delete;
  SandboxProcess& operator=(const SandboxProcess&) = delete;

  // Measures one request within `timeout` (wall clock). Always returns a result: failures of
  // the child become error classes, and the next call starts a fresh child. A child that went
  // without the seccomp filter on a worker that is not emulated (SandboxOptions::emulated) is
  // killed and the result is a RUNTIME_ERROR that says so.
  v1::MeasureResult Measure(const v1::SandboxMeasure& measure, absl::Duration timeout);

  // Runs the calibration kernel. Errors: Unavailable (child could not start or died).
  // FailedPrecondition: the child went without the seccomp filter (kConfinedEmulated) but this
  // worker is not emulated; it was killed.
  absl::StatusOr<std::vector<double>> Calibrate(int repeats, absl::Duration timeout);

  // Times the child was (re)started; for tests.
  int spawn_count() const { return spawn_count_; }

  // SandboxConfinement bits the current child reported (0 before its first answer).
  uint32_t confinement() const;

 private:
  absl::Status EnsureStarted();
  // Kills the child (if `kill_first`) and reaps it; returns its wait status.
  int Reap(bool kill_first);
  // Reaps a child that closed the channel: it is exiting, so wait up to a grace period
  // before killing it (one that closed the channel and kept running is killed: `*killed`).
  int ReapExiting(bool* killed);
  // Clears the status page's per-request fields.
  void ResetStatus();
  // The status page's per-request record and the child's wait status, for classification.
  ChildEnd EndOfChild(int wait_status, absl::Duration timeout, std::string channel_error) const;
  // Logs, once per worker, what confinement the first child reported.
  void LogConfinementOnce();
  // FailedPrecondition when the child reported kConfinedEmulated and options_.emulated is
  // false.
  absl::Status CheckConfinement() const;
  // Sends one request and waits for its response. On failure the child is reaped and the
  // returned result says why it died.
  absl::StatusOr<v1::SandboxResponse> Call(const v1::SandboxRequest& request,
                                           absl::Duration timeout, v1::MeasureResult* died);

  const SandboxOptions options_;
  pid_t pid_ = -1;
  // The frame channel (our end of the socketpair).
  int fd_ = -1;
  // The status page shared with every child of this sandbox (one memfd, mapped once).
  int status_fd_ = -1;
  SandboxStatusPage* status_ = nullptr;
  bool logged_confinement_ = false;
  int spawn_count_ = 0;
};

// Measurement timeout used when a request leaves timeout_ms at 0.
inline constexpr absl::Duration kDefaultMeasureTimeout = absl::Seconds(10);

// What a device backend does with a request: measures it in `sandbox` with the candidate and
// reference artifacts at the local paths given, within the request's timeout (or
// kDefaultMeasureTimeout) plus `startup_slack` for the child's start-up.
v1::MeasureResult MeasureInSandbox(SandboxProcess& sandbox, const v1::MeasureRequest& request,
                                   const std::string& artifact_path,
                                   const std::string& reference_path, absl::Duration startup_slack);

// Finds the tunefarm_sandbox binary: $TUNEFARM_SANDBOX, then Bazel runfiles of the running
// program ($RUNFILES_DIR, $TEST_SRCDIR, /proc/self/exe.runfiles), then next to the program
// and in ../rpc_server/ relative to it (bazel-bin/cli/tunefarm). Errors: NotFound.
absl::StatusOr<std::string> FindSandboxBinary();

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_SANDBOX_PROCESS_H_
