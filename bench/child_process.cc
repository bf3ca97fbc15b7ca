#include "bench/child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace tunefarm::bench {

absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const std::string& netns,
                            const std::string& log_file) {
  std::vector<std::string> full;
  if (!netns.empty()) full = {"/usr/sbin/ip", "netns", "exec", netns};
  full.insert(full.end(), argv.begin(), argv.end());
  std::vector<char*> args;
  for (std::string& a : full) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return absl::InternalError(absl::StrCat("cannot start ", full[0], ": rc ", rc));
  return pid;
}

absl::StatusOr<int> RunToExit(const std::vector<std::string>& argv, const std::string& log_file) {
  absl::StatusOr<pid_t> pid = Spawn(argv, "", log_file);
  if (!pid.ok()) return pid.status();
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

absl::Status RunQuietly(const std::vector<std::string>& argv) {
  absl::StatusOr<int> code = RunToExit(argv, "/dev/null");
  if (!code.ok()) return code.status();
  if (*code == 0) return absl::OkStatus();
  std::string line;
  for (const std::string& a : argv) absl::StrAppend(&line, line.empty() ? "" : " ", a);
  return absl::UnavailableError(absl::StrCat("'", line, "' failed"));
}

absl::Status ChildProcess::Start() {
  absl::StatusOr<pid_t> pid = Spawn(argv_, netns_, log_file_);
  if (!pid.ok()) return pid.status();
  pid_ = *pid;
  return absl::OkStatus();
}

void ChildProcess::Kill() {
  if (pid_ <= 0) return;
  kill(pid_, SIGCONT);  // a stopped process must not linger
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

void ChildProcess::Stop() {
  if (pid_ > 0) kill(pid_, SIGSTOP);
}

void ChildProcess::Continue() {
  if (pid_ > 0) kill(pid_, SIGCONT);
}

bool ChildProcess::Running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

std::string FindBinary(const std::string& flag, const char* relative) {
  if (!flag.empty()) return flag;
  std::vector<std::string> candidates;
  if (const char* srcdir = std::getenv("TEST_SRCDIR")) {
    candidates.push_back(absl::StrCat(srcdir, "/tunefarm/", relative));
  }
  candidates.push_back(relative);  // `bazel run` starts in the runfiles tree
  for (const std::string& c : candidates) {
    if (access(c.c_str(), X_OK) == 0) {
      char resolved[4096];
      return realpath(c.c_str(), resolved) != nullptr ? resolved : c;
    }
  }
  return "";
}

int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

double ProcessCpuSeconds(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string stat = ss.str();
  // Fields after the command name (which may hold spaces) start at the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::vector<std::string> f = absl::StrSplit(stat.substr(close + 2), ' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  if (f.size() < 13) return -1;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  return (std::strtod(f[11].c_str(), nullptr) + std::strtod(f[12].c_str(), nullptr)) / ticks;
}

}  // namespace tunefarm::bench
