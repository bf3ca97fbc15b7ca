#include "rpc_server/sandbox_confinement.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <initializer_list>
#include <memory>

#include "absl/strings/str_cat.h"

namespace tunefarm {
namespace {

// The status page the SIGSYS handler writes to; set once before the filter is installed.
SandboxStatusPage* g_status_page = nullptr;

void OnForbiddenSyscall(int, siginfo_t* info, void*) {
  if (g_status_page != nullptr) g_status_page->forbidden_syscall.store(info->si_syscall);
  _exit(kSandboxExitForbiddenSyscall);
}

// New user + network namespaces; where user namespaces are refused and we are root, a network
// namespace alone. Returns the SandboxConfinement bits obtained, 0 with `*error` set if none.
uint32_t IsolateNetwork(int* error) {
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) {
    return kConfinedUserNamespace | kConfinedNetworkNamespace;
  }
  *error = errno;
  if (unshare(CLONE_NEWNET) == 0) {
    *error = 0;
    return kConfinedNetworkNamespace;
  }
  return 0;
}

// Drops every capability of this process (a root child without a user namespace keeps none).
void DropCapabilities() {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
  syscall(SYS_capset, &header, data);
}

// A seccomp filter under construction; rules for system calls this architecture does not have
// are skipped (the same table serves x86-64 and aarch64).
class Filter {
 public:
  // `default_action`: what a call no rule names gets (SCMP_ACT_ALLOW or SCMP_ACT_TRAP).
  // seccomp_init returns null when it cannot allocate the context: that filter fails to load
  // (-ENOMEM), never "loads" as nothing.
  explicit Filter(uint32_t default_action)
      : ctx_(seccomp_init(default_action), &seccomp_release),
        status_(ctx_ == nullptr ? -ENOMEM : 0) {}
  bool ok() const { return ctx_ != nullptr && status_ == 0; }
  int status() const { return status_; }

  // Traps `name` when all of `args` match (always, with none).
  void Trap(const char* name, std::initializer_list<scmp_arg_cmp> args = {}) {
    Add(SCMP_ACT_TRAP, name, args);
  }
  // Allows `name` when all of `args` match (always, with none). Several rules for one call:
  // any of them allows it.
  void Allow(const char* name, std::initializer_list<scmp_arg_cmp> args = {}) {
    Add(SCMP_ACT_ALLOW, name, args);
  }
  // Makes `name` fail with `error` (for calls whose older form the C library falls back to).
  void Fail(const char* name, int error) { Add(SCMP_ACT_ERRNO(error), name, {}); }

  // 0 when the filter is in force, else a negative errno (never 0 without a context).
  int Load() {
    if (ctx_ == nullptr) return -ENOMEM;
    return ok() ? seccomp_load(ctx_.get()) : status_;
  }

 private:
  void Add(uint32_t action, const char* name, std::initializer_list<scmp_arg_cmp> args) {
    if (!ok()) return;
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR || nr < 0) return;  // not a system call on this architecture
    int rc = seccomp_rule_add_array(ctx_.get(), action, nr, static_cast<unsigned>(args.size()),
                                    args.size() == 0 ? nullptr : args.begin());
    if (rc != 0) status_ = rc;
  }

  std::unique_ptr<void, void (*)(scmp_filter_ctx)> ctx_;
  int status_;
};

// The CPU child's filter: everything not named here traps. What a kernel and the harness do:
// memory, OpenMP's thread pool, time, loading the artifact (read-only files), the frame
// channel and the status page (descriptors it already holds), its own signals and limits.
// Collected with strace over the sandbox tests and a 2-thread tuning run, plus the calls
// the C library makes for the same purposes on other versions (e.g. open beside openat).
int InstallAllowlist() {
  Filter f(SCMP_ACT_TRAP);
  const scmp_datum_t self = static_cast<scmp_datum_t>(getpid());
  for (const char* name :
       {// memory
        "mmap", "munmap", "mprotect", "mremap", "madvise", "brk", "mincore", "membarrier",
        // threads and their synchronization
        "futex", "futex_waitv", "set_robust_list", "get_robust_list", "rseq", "set_tid_address",
        "sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getparam",
        "sched_getscheduler", "sched_get_priority_max", "sched_get_priority_min", "getpriority",
        "gettid", "getpid", "getppid", "exit", "exit_group",
        // signals (to itself: below)
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait",
        "sigaltstack", "pause", "restart_syscall",
        // time
        "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time",
        "times", "getrusage",
        // reading files and using descriptors it holds (writes cannot open a file: below)
        "read", "readv", "pread64", "preadv", "preadv2", "write", "writev", "lseek", "close",
        "close_range", "fstat", "newfstatat", "stat", "lstat", "statx", "access", "faccessat",
        "faccessat2", "readlink", "readlinkat", "getcwd", "getdents64", "fcntl", "dup", "dup2",
        "dup3", "poll", "ppoll", "select", "pselect6", "sendto", "sendmsg", "recvfrom", "recvmsg",
        "shutdown",
        // identity and system information
        "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups", "uname",
        "sysinfo", "getrandom", "arch_prctl", "getrlimit", "seccomp"}) {
    f.Allow(name);
  }
  // New threads only (OpenMP's pool), never processes; clone3 hides its flags from the filter.
  f.Allow("clone", {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)});
  f.Fail("clone3", ENOSYS);
  // Files open for reading only (the artifact, the C library's own files).
  const scmp_datum_t writes =
      static_cast<scmp_datum_t>(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND);
  f.Allow("openat", {SCMP_A2(SCMP_CMP_MASKED_EQ, writes, 0)});
  f.Allow("open", {SCMP_A1(SCMP_CMP_MASKED_EQ, writes, 0)});
  f.Fail("openat2", ENOSYS);  // flags in memory; the C library falls back to openat
  // Signals to itself only.
  f.Allow("kill", {SCMP_A0(SCMP_CMP_EQ, self)});
  f.Allow("tgkill", {SCMP_A0(SCMP_CMP_EQ, self)});
  // Its own limits: read any, move only the CPU-time limit (the child does so per request).
  f.Allow("setrlimit", {SCMP_A0(SCMP_CMP_EQ, RLIMIT_CPU)});
  f.Allow("prlimit64", {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)});
  f.Allow("prlimit64", {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A1(SCMP_CMP_EQ, RLIMIT_CPU)});
  f.Allow("prctl", {SCMP_A0(SCMP_CMP_NE, PR_SET_PDEATHSIG)});
  // isatty() on stdout (a /dev/null the kernel may print to).
  f.Allow("ioctl", {SCMP_A1(SCMP_CMP_EQ, TCGETS)});
  return f.Load();
}

// The CUDA child's filter: the dangerous calls trap, everything else is allowed.
int InstallDenylist(const ConfinementOptions& options) {
  Filter f(SCMP_ACT_ALLOW);
  const scmp_datum_t self = static_cast<scmp_datum_t>(getpid());
  // No new processes: fork and exec, and clone of anything but a thread (OpenMP's pool is
  // threads). clone3 passes its flags in memory the filter cannot read: it fails with ENOSYS
  // and the C library falls back to clone.
  for (const char* name : {"fork", "vfork", "execve", "execveat"}) f.Trap(name);
  f.Trap("clone", {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)});
  f.Fail("clone3", ENOSYS);
  // No network.
  for (const char* name : {"socket", "socketpair"}) {
    if (options.allow_unix_sockets) {
      f.Trap(name, {SCMP_A0(SCMP_CMP_NE, AF_UNIX)});
    } else {
      f.Trap(name);
    }
  }
  // Signals only to itself.
  f.Trap("kill", {SCMP_A0(SCMP_CMP_NE, self)});
  f.Trap("tgkill", {SCMP_A0(SCMP_CMP_NE, self)});
  f.Trap("rt_sigqueueinfo", {SCMP_A0(SCMP_CMP_NE, self)});
  f.Trap("rt_tgsigqueueinfo", {SCMP_A0(SCMP_CMP_NE, self)});
  // Limits: the CPU-time limit may be read and moved (the child does so per request); no other
  // limit may be raised, and no other process's limits touched.
  f.Trap("setrlimit", {SCMP_A0(SCMP_CMP_NE, RLIMIT_CPU)});
  f.Trap("prlimit64", {SCMP_A0(SCMP_CMP_NE, 0)});  // the C library passes 0 for itself
  f.Trap("prlimit64", {SCMP_A1(SCMP_CMP_NE, RLIMIT_CPU), SCMP_A2(SCMP_CMP_NE, 0)});
  f.Trap("prctl", {SCMP_A0(SCMP_CMP_EQ, PR_SET_PDEATHSIG)});
  // Other processes, the kernel's own state, and io_uring (its operations bypass this filter).
  for (const char* name : {"tkill",
                           "pidfd_open",
                           "pidfd_send_signal",
                           "pidfd_getfd",
                           "ptrace",
                           "process_vm_readv",
                           "process_vm_writev",
                           "kcmp",
                           "mount",
                           "umount2",
                           "pivot_root",
                           "chroot",
                           "unshare",
                           "setns",
                           "reboot",
                           "kexec_load",
                           "kexec_file_load",
                           "init_module",
                           "finit_module",
                           "delete_module",
                           "bpf",
                           "perf_event_open",
                           "keyctl",
                           "add_key",
                           "request_key",
                           "userfaultfd",
                           "swapon",
                           "swapoff",
                           "acct",
                           "settimeofday",
                           "clock_settime",
                           "clock_adjtime",
                           "adjtimex",
                           "sethostname",
                           "setdomainname",
                           "iopl",
                           "ioperm",
                           "quotactl",
                           "name_to_handle_at",
                           "open_by_handle_at",
                           "fanotify_init",
                           "io_uring_setup",
                           "io_uring_enter",
                           "io_uring_register",
                           "fsopen",
                           "fsconfig",
                           "fsmount",
                           "fspick",
                           "move_mount",
                           "open_tree",
                           "mount_setattr"}) {
    f.Trap(name);
  }
  if (options.forbid_file_writes) {
    for (int flag : {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND}) {
      const scmp_datum_t bit = static_cast<scmp_datum_t>(flag);
      f.Trap("open", {SCMP_A1(SCMP_CMP_MASKED_EQ, bit, bit)});
      f.Trap("openat", {SCMP_A2(SCMP_CMP_MASKED_EQ, bit, bit)});
    }
    f.Fail("openat2", ENOSYS);  // flags in memory; the C library falls back to openat
    for (const char* name :
         {"creat",       "rename",       "renameat",    "renameat2", "unlink",    "unlinkat",
          "rmdir",       "mkdir",        "mkdirat",     "link",      "linkat",    "symlink",
          "symlinkat",   "truncate",     "chmod",       "fchmod",    "fchmodat",  "chown",
          "fchown",      "lchown",       "fchownat",    "mknod",     "mknodat",   "utime",
          "utimes",      "utimensat",    "futimesat",   "setxattr",  "lsetxattr", "fsetxattr",
          "removexattr", "lremovexattr", "fremovexattr"}) {
      f.Trap(name);
    }
  }
  return f.Load();
}

}  // namespace

absl::Status ConfineSandbox(const ConfinementOptions& options, SandboxStatusPage* page) {
  close_range(kSandboxStatusFd + 1, ~0u, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  rlimit core{0, 0};
  setrlimit(RLIMIT_CORE, &core);
  if (options.memory_limit_mb > 0) {
    const rlim_t bytes = static_cast<rlim_t>(options.memory_limit_mb) << 20;
    rlimit as{bytes, bytes};
    setrlimit(RLIMIT_AS, &as);
  }
  if (options.forbid_file_writes) {
    rlimit fsize{0, 0};
    setrlimit(RLIMIT_FSIZE, &fsize);
  }
  uint32_t confinement = 0;
  if (options.isolate_network) {
    int error = 0;
    confinement |= IsolateNetwork(&error);
    page->network_namespace_errno.store(error);
  }
  DropCapabilities();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("prctl(PR_SET_NO_NEW_PRIVS): ", std::strerror(errno)));
  }
  g_status_page = page;
  struct sigaction sa {};
  sa.sa_sigaction = OnForbiddenSyscall;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSYS, &sa, nullptr);
  if (int rc = options.syscall_allowlist ? InstallAllowlist() : InstallDenylist(options); rc != 0) {
    if (!options.emulated) {
      return absl::FailedPreconditionError(
          absl::StrCat("installing the seccomp filter: ", std::strerror(-rc)));
    }
    // qemu-user answers prctl(PR_SET_SECCOMP) and seccomp() with an error by design.
    confinement |= kConfinedEmulated;
  } else {
    confinement |= kConfinedSeccomp;
    if (options.forbid_file_writes) confinement |= kConfinedNoFileWrites;
  }
  page->confinement.store(confinement);
  return absl::OkStatus();
}

}  // namespace tunefarm
