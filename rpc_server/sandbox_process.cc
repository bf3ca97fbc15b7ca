#include "rpc_server/sandbox_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "absl/base/internal/raw_logging.h"
#include "absl/strings/str_cat.h"
#include "rpc_server/framing.h"
#include "rpc_server/sandbox_environment.h"

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

// Whether `pid` is stopped (state T or t in /proc/PID/stat).
bool IsStopped(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         (stat[paren + 2] == 'T' || stat[paren + 2] == 't');
}

// `fd` moved above the descriptors the child is given, so that the spawn's dup2 calls cannot
// overwrite one source with another (CLOEXEC; closes `fd`). -1 stays -1.
int AboveChildFds(int fd) {
  if (fd < 0 || fd > kSandboxStatusFd) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, kSandboxStatusFd + 1);
  close(fd);
  return moved;
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
  if (status_ != nullptr) munmap(status_, sizeof(SandboxStatusPage));
  if (status_fd_ >= 0) close(status_fd_);
}

uint32_t SandboxProcess::confinement() const {
  return status_ == nullptr ? 0 : status_->confinement.load();
}

absl::Status SandboxProcess::EnsureStarted() {
  if (pid_ > 0) return absl::OkStatus();
  // Kernels run as our user: without this they could read our memory and environment (the
  // farm token) through /proc. Idempotent, so every sandbox may say it.
  prctl(PR_SET_DUMPABLE, 0);
  if (status_ == nullptr) {
    status_fd_ = AboveChildFds(memfd_create("tunefarm-sandbox-status", MFD_CLOEXEC));
    if (status_fd_ < 0 || ftruncate(status_fd_, sizeof(SandboxStatusPage)) != 0) {
      return absl::UnavailableError(absl::StrCat("sandbox status page: ", std::strerror(errno)));
    }
    void* page =
        mmap(nullptr, sizeof(SandboxStatusPage), PROT_READ | PROT_WRITE, MAP_SHARED, status_fd_, 0);
    if (page == MAP_FAILED) {
      return absl::UnavailableError(absl::StrCat("sandbox status page: ", std::strerror(errno)));
    }
    status_ = new (page) SandboxStatusPage{};
  }
  status_->confinement.store(0);
  int fds[2];
  // CLOEXEC on both ends: only the dup2'd copies reach the child.
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return absl::UnavailableError(absl::StrCat("socketpair: ", std::strerror(errno)));
  }
  fds[1] = AboveChildFds(fds[1]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int fd : {0, 1, 2}) {
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, fds[1], kSandboxChannelFd);
  posix_spawn_file_actions_adddup2(&actions, status_fd_, kSandboxStatusFd);
  std::string limit = absl::StrCat(options_.memory_limit_mb);
  std::string device = options_.device.empty() ? "cpu" : options_.device;
  std::vector<char*> argv;
  for (const std::string& arg : options_.exec_prefix)
    argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(const_cast<char*>(options_.binary.c_str()));
  argv.push_back(limit.data());
  argv.push_back(device.data());
  // Leave to the child to go without seccomp under qemu-user (sandbox_main.cc): never given
  // when this worker runs natively.
  std::string emulated = "emulated";
  if (options_.emulated) argv.push_back(emulated.data());
  argv.push_back(nullptr);
  const std::string& program =
      options_.exec_prefix.empty() ? options_.binary : options_.exec_prefix.front();
  std::vector<std::string> env = SandboxEnvironment(environ, options_.kernel_threads);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return absl::UnavailableError(
        absl::StrCat("cannot start sandbox '", program, "': ", std::strerror(rc)));
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

int SandboxProcess::ReapExiting(bool* killed) {
  *killed = false;
  // A dying child closes the channel as the kernel tears it down; its exit follows at once.
  constexpr int kGraceSteps = 200;
  constexpr absl::Duration kGraceStep = absl::Milliseconds(10);
  for (int i = 0; i < kGraceSteps && pid_ > 0; ++i) {
    int status = 0;
    pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      pid_ = -1;
      Reap(/*kill_first=*/false);  // closes the channel
      return status;
    }
    absl::SleepFor(kGraceStep);
  }
  *killed = pid_ > 0;
  return Reap(/*kill_first=*/true);
}

void SandboxProcess::ResetStatus() {
  status_->allocation_failures.store(0);
  status_->failed_allocation_bytes.store(0);
  status_->forbidden_syscall.store(-1);
}

ChildEnd SandboxProcess::EndOfChild(int wait_status, absl::Duration timeout,
                                    std::string channel_error) const {
  ChildEnd end;
  end.wait_status = wait_status;
  end.timeout = timeout;
  end.channel_error = std::move(channel_error);
  end.allocation_failures = status_->allocation_failures.load();
  end.failed_allocation_bytes = status_->failed_allocation_bytes.load();
  end.forbidden_syscall = status_->forbidden_syscall.load();
  end.memory_limit_mb = options_.memory_limit_mb;
  return end;
}

void SandboxProcess::LogConfinementOnce() {
  if (logged_confinement_) return;
  logged_confinement_ = true;
  const uint32_t c = status_->confinement.load();
  const bool cuda = !options_.device.empty() && options_.device != "cpu";
  if ((c & kConfinedEmulated) != 0) {
    ABSL_RAW_LOG(WARNING,
                 "sandbox: the child runs under qemu-user, which refuses seccomp: no system-call "
                 "filter for kernels (see deploy/arm64/README.md)");
  }
  if ((c & kConfinedNetworkNamespace) != 0 || cuda) {
    return;  // in force as designed (CUDA children do without namespaces by design)
  }
  const int error = status_->network_namespace_errno.load();
  ABSL_RAW_LOG(WARNING,
               "sandbox: no network namespace for kernels (unshare: %s); the seccomp filter "
               "still refuses every socket",
               error != 0 ? std::strerror(error) : "not tried");
}

absl::Status SandboxProcess::CheckConfinement() const {
  if ((status_->confinement.load() & kConfinedEmulated) == 0 || options_.emulated) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(
      "the sandbox child reports running under qemu-user without a seccomp filter, but this "
      "worker is not emulated: refused (check uname -m and /proc/cpuinfo of this machine)");
}

absl::StatusOr<v1::SandboxResponse> SandboxProcess::Call(const v1::SandboxRequest& request,
                                                         absl::Duration timeout,
                                                         v1::MeasureResult* died) {
  if (absl::Status s = EnsureStarted(); !s.ok()) {
    *died = Died(v1::RUNTIME_ERROR, std::string(s.message()));
    return s;
  }
  ResetStatus();
  const absl::Time deadline = absl::Now() + timeout;
  absl::Status status = WriteFrame(fd_, request);
  v1::SandboxResponse response;
  if (status.ok()) status = ReadFrame(fd_, &response, deadline);
  if (status.ok()) {
    // The confinement is the child's start-up record: a child that ran without the filter on a
    // native worker is never trusted with another request, and its answer is dropped.
    if (absl::Status refused = CheckConfinement(); !refused.ok()) {
      Reap(/*kill_first=*/true);
      *died = Died(v1::RUNTIME_ERROR, std::string(refused.message()));
      return refused;
    }
    LogConfinementOnce();
    // Its answer is all we need; killing spares us waiting on a driver's teardown.
    if (response.exiting()) Reap(/*kill_first=*/true);
    return response;
  }
  ChildEnd end;
  if (absl::IsDeadlineExceeded(status)) {
    const bool stopped = IsStopped(pid_);
    end = EndOfChild(Reap(/*kill_first=*/true), timeout, std::string(status.message()));
    end.killed_at_deadline = true;
    end.was_stopped = stopped;
  } else if (absl::IsUnavailable(status)) {
    // The child closed the channel: it is dying (or closed it and went on: killed).
    bool killed = false;
    end = EndOfChild(ReapExiting(&killed), timeout, std::string(status.message()));
    end.killed_for_corrupt_channel = killed;
  } else {
    // Garbage on the channel: whatever the child is doing, it is not answering us.
    end = EndOfChild(Reap(/*kill_first=*/true), timeout, std::string(status.message()));
    end.killed_for_corrupt_channel = true;
  }
  *died = ClassifyChildEnd(end);
  return status;
}

v1::MeasureResult SandboxProcess::Measure(const v1::SandboxMeasure& measure,
                                          absl::Duration timeout) {
  v1::SandboxRequest request;
  *request.mutable_measure() = measure;
  v1::MeasureResult died;
  absl::StatusOr<v1::SandboxResponse> response = Call(request, timeout, &died);
  if (!response.ok()) return died;
  // A kernel that saw an allocation fail and reported some other failure ran out of memory.
  if (response->result().error() == v1::RUNTIME_ERROR && status_->allocation_failures.load() > 0) {
    v1::MeasureResult result = response->result();
    result.set_error(v1::OUT_OF_MEMORY);
    result.set_message(absl::StrCat("kernel ran out of memory (an allocation of ",
                                    status_->failed_allocation_bytes.load(),
                                    " bytes failed): ", result.message()));
    return result;
  }
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
  if (absl::IsFailedPrecondition(response.status())) return response.status();
  if (!response.ok()) return absl::UnavailableError(died.message());
  if (response->result().error() != v1::ERROR_NONE) {
    return absl::UnavailableError(response->result().message());
  }
  return std::vector<double>(response->result().costs_s().begin(),
                             response->result().costs_s().end());
}

}  // namespace tunefarm
