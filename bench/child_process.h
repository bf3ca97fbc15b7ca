// A child process of a benchmark (the chaos run's `tunefarm` commands, the fuzz driver's targets),
// optionally inside a network namespace, with its output in a file; faults are signals to it.
#ifndef TUNEFARM_BENCH_CHILD_PROCESS_H_
#define TUNEFARM_BENCH_CHILD_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tunefarm::bench {

// Runs `argv` (argv[0] a path) with stdout and stderr appended to `log_file`; inside network
// namespace `netns` when it is not empty (through `ip netns exec`). Returns the pid.
// Internal: posix_spawn failed.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const std::string& netns,
                            const std::string& log_file);

// Runs `argv` to completion with its output appended to `log_file`; returns its exit code, or
// 128 + the signal that ended it.
absl::StatusOr<int> RunToExit(const std::vector<std::string>& argv, const std::string& log_file);

// Runs `argv` to completion with its output discarded; OK when it exits 0.
absl::Status RunQuietly(const std::vector<std::string>& argv);

// The binary `relative` to the runfiles root (e.g. "cli/tunefarm"), or `flag` when it is not
// empty; empty when neither exists.
std::string FindBinary(const std::string& flag, const char* relative);

// A TCP port free right now on loopback (for a child that must listen on a known address).
int FreeLoopbackPort();

// CPU seconds (user + system) process `pid` has used so far; negative when it cannot be read.
double ProcessCpuSeconds(pid_t pid);

class ChildProcess {
 public:
  ChildProcess(std::string name, std::vector<std::string> argv, std::string netns,
               std::string log_file)
      : name_(std::move(name)),
        argv_(std::move(argv)),
        netns_(std::move(netns)),
        log_file_(std::move(log_file)) {}
  ~ChildProcess() { Kill(); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  absl::Status Start();
  // SIGKILL and reap (no-op when not running).
  void Kill();
  // SIGSTOP / SIGCONT.
  void Stop();
  void Continue();
  // Whether it is still running (reaps it when it has exited).
  bool Running();

  const std::string& name() const { return name_; }
  const std::string& log_file() const { return log_file_; }
  // -1 when not started.
  pid_t pid() const { return pid_; }

 private:
  std::string name_;
  std::vector<std::string> argv_;
  std::string netns_;
  std::string log_file_;
  pid_t pid_ = -1;
};

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_CHILD_PROCESS_H_
