#include "rpc_server/sandbox_process.h"

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "rpc_server/framing.h"
#include "rpc_server/sandbox_exit_codes.h"

extern char** environ;

namespace tunefarm {
namespace {

constexpr char kSandboxName[] = "tunefarm_sandbox";
constexpr char kRunfilesPath[] = "tunefarm/rpc_server/tunefarm_sandbox";

bool IsExecutable(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

std::string SelfExe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

v1::MeasureResult Died(v1::ErrorClass error, std::string message) {
  v1::MeasureResult r;
  r.set_error(error);
  r.set_message(std::move(message));
  return r;
}

}  // namespace

absl::StatusOr<std::string> FindSandboxBinary() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("TUNEFARM_SANDBOX")) candidates.push_back(env);
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(var)) {
      candidates.push_back(absl::StrCat(dir, "/", kRunfilesPath));
    }
  }
  std::string exe = SelfExe();
  if (!exe.empty()) {
    candidates.push_back(absl::StrCat(exe, ".runfiles/", kRunfilesPath));
    std::string dir = exe.substr(0, exe.rfind('/'));
    candidates.push_back(absl::StrCat(dir, "/", kSandboxName));
    candidates.push_back(absl::StrCat(dir, "/../rpc_server/", kSandboxName));
  }
  for (const std::string& c : candidates) {
    if (IsExecutable(c)) return c;
  }
  return absl::NotFoundError(
      "cannot find the tunefarm_sandbox binary; build //rpc_server:tunefarm_sandbox and set "
      "TUNEFARM_SANDBOX or --sandbox");
}

SandboxProcess::~SandboxProcess() {
  if (pid_ > 0) Reap(/*kill_first=*/true);
}

absl::Status SandboxProcess::EnsureStarted() {
  if (pid_ > 0) return absl::OkStatus();
  int fds[2];
  // CLOEXEC on both ends: only the dup2'd copies reach the child.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return absl::UnavailableError(absl::StrCat("socketpair: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  std::string limit = absl::StrCat(options_.memory_limit_mb);
  std::string device = options_.device.empty() ? "cpu" : options_.device;
  char* argv[] = {const_cast<char*>(options_.binary.c_str()), limit.data(), device.data(), nullptr};
  pid_t pid = -1;
  int rc = posix_spawn(&pid, options_.binary.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return absl::UnavailableError(
        absl::StrCat("cannot start sandbox '", options_.binary, "': ", std::strerror(rc)));
  }
  pid_ = pid;
  fd_ = fds[0];
  ++spawn_count_;
  return absl::OkStatus();
}

int SandboxProcess::Reap(bool kill_first) {
  int status = 0;
  if (pid_ > 0) {
    if (kill_first) kill(pid_, SIGKILL);
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (fd_ >= 0) close(fd_);
  pid_ = -1;
  fd_ = -1;
  return status;
}

absl::StatusOr<v1::SandboxResponse> SandboxProcess::Call(const v1::SandboxRequest& request,
                                                         absl::Duration timeout,
                                                         v1::MeasureResult* died) {
  if (absl::Status s = EnsureStarted(); !s.ok()) {
    *died = Died(v1::RUNTIME_ERROR, std::string(s.message()));
    return s;
  }
  const absl::Time deadline = absl::Now() + timeout;
  absl::Status status = WriteFrame(fd_, request);
  v1::SandboxResponse response;
  if (status.ok()) status = ReadFrame(fd_, &response, deadline);
  if (status.ok()) {
    // Its answer is all we need; killing spares us waiting on a driver's teardown.
    if (response.exiting()) Reap(/*kill_first=*/true);
    return response;
  }
  if (absl::IsDeadlineExceeded(status)) {
    Reap(/*kill_first=*/true);
    *died = Died(v1::TIMEOUT, absl::StrCat("killed after the ", absl::FormatDuration(timeout),
                                           " wall-clock timeout"));
    return status;
  }
  // The child closed the channel: it died. Give it a moment to finish dying, then reap.
  int wstatus = Reap(/*kill_first=*/false);
  if (WIFSIGNALED(wstatus)) {
    int sig = WTERMSIG(wstatus);
    if (sig == SIGXCPU || sig == SIGKILL) {
      *died = Died(v1::TIMEOUT, absl::StrCat("CPU-time limit exceeded (signal ", sig, ")"));
    } else {
      *died = Died(v1::RUNTIME_ERROR,
                   absl::StrCat("kernel crashed with signal ", sig, " (", strsignal(sig), ")"));
    }
  } else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == kSandboxExitOutOfMemory) {
    *died = Died(v1::OUT_OF_MEMORY, absl::StrCat("kernel exceeded the sandbox memory limit of ",
                                                 options_.memory_limit_mb, " MiB"));
  } else {
    *died = Died(v1::RUNTIME_ERROR, absl::StrCat("sandbox exited with status ",
                                                 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1,
                                                 ": ", status.message()));
  }
  return status;
}

v1::MeasureResult SandboxProcess::Measure(const v1::SandboxMeasure& measure,
                                          absl::Duration timeout) {
  v1::SandboxRequest request;
  *request.mutable_measure() = measure;
  v1::MeasureResult died;
  absl::StatusOr<v1::SandboxResponse> response = Call(request, timeout, &died);
  if (!response.ok()) return died;
  return response->result();
}

v1::MeasureResult MeasureInSandbox(SandboxProcess& sandbox, const v1::MeasureRequest& request,
                                   const std::string& artifact_path,
                                   const std::string& reference_path,
                                   absl::Duration startup_slack) {
  v1::SandboxMeasure measure;
  *measure.mutable_request() = request;
  measure.set_artifact_path(artifact_path);
  measure.set_reference_path(reference_path);
  absl::Duration timeout =
      request.timeout_ms() > 0 ? absl::Milliseconds(request.timeout_ms()) : kDefaultMeasureTimeout;
  return sandbox.Measure(measure, timeout + startup_slack);
}

absl::StatusOr<std::vector<double>> SandboxProcess::Calibrate(int repeats, absl::Duration timeout) {
  v1::SandboxRequest request;
  request.set_calibrate_repeats(repeats);
  v1::MeasureResult died;
  absl::StatusOr<v1::SandboxResponse> response = Call(request, timeout, &died);
  if (!response.ok()) return absl::UnavailableError(died.message());
  if (response->result().error() != v1::ERROR_NONE) {
    return absl::UnavailableError(response->result().message());
  }
  return std::vector<double>(response->result().costs_s().begin(),
                             response->result().costs_s().end());
}

}  // namespace tunefarm
