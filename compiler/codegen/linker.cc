#include "compiler/codegen/linker.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"

extern char** environ;

namespace tunefarm::codegen {
namespace {

// Runs the system C compiler driver with `args` (after "cc"); `what` names the step and
// `out_path` the file it makes (its log is kept beside it while it runs).
absl::Status RunCompilerDriver(std::vector<std::string> args, const std::string& out_path,
                               const std::string& what) {
  std::vector<std::string> argv = {"cc"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string log_path = out_path + ".log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, "cc", &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    unlink(log_path.c_str());
    return absl::FailedPreconditionError(
        absl::StrCat("cannot run the system C compiler driver `cc` to ", what, " (install gcc)"));
  }
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  std::ifstream in(log_path, std::ios::binary);
  std::ostringstream log;
  log << in.rdbuf();
  unlink(log_path.c_str());
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    std::string text = log.str();
    return absl::InternalError(
        absl::StrCat(what, " (", out_path, ") failed: ", text.empty() ? "(no output)" : text));
  }
  return absl::OkStatus();
}

// The file the dynamic loader mapped for `soname` in this process (loading it if needed), or
// empty. The kernels' runtime libraries are the ones this process runs with.
std::string LoadedLibraryPath(const char* soname) {
  void* handle = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) handle = dlopen(soname, RTLD_LAZY);
  if (handle == nullptr) return "";
  struct link_map* map = nullptr;
  std::string path;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) {
    path = map->l_name;
  }
  dlclose(handle);
  return path;
}

#if defined(__x86_64__)
constexpr char kGnuTriple[] = "x86_64-linux-gnu";
#elif defined(__aarch64__)
constexpr char kGnuTriple[] = "aarch64-linux-gnu";
#else
constexpr char kGnuTriple[] = "unknown";
#endif

// libgcc's archive (helpers such as half-precision conversions for older CPUs), as `cc`
// links it; empty when gcc is not installed.
std::string LibgccArchive() {
  for (const char* version : {"14", "13", "12", "11", "10"}) {
    std::string path = absl::StrCat("/usr/lib/gcc/", kGnuTriple, "/", version, "/libgcc.a");
    if (access(path.c_str(), R_OK) == 0) return path;
  }
  return "";
}

// The libraries every kernel library is linked against, found once per process.
const std::vector<std::string>& RuntimeInputs() {
  static const std::vector<std::string>* inputs = [] {
    auto* v = new std::vector<std::string>;
    for (const std::string& path :
         {LibgccArchive(), LoadedLibraryPath("libgomp.so.1"), LoadedLibraryPath("libm.so.6"),
          LoadedLibraryPath("libc.so.6")}) {
      if (!path.empty()) v->push_back(path);
    }
    return v;
  }();
  return *inputs;
}

// lld keeps its state in globals: one link at a time per process.
absl::Mutex lld_mu;
// Set when lld reported that it cannot run again in this process.
bool lld_unusable ABSL_GUARDED_BY(lld_mu) = false;

// Links with lld in this process. Unavailable: lld cannot be used (any more) here, so the
// caller links with `cc` instead.
absl::Status LinkInProcess(const std::vector<std::string>& object_paths,
                           const std::string& out_path) {
  std::vector<const char*> args = {"ld.lld",      "--build-id",       "--eh-frame-hdr", "-z",
                                   "noexecstack", "--hash-style=gnu", "--as-needed",    "-shared",
                                   "-o",          out_path.c_str()};
  for (const std::string& o : object_paths) args.push_back(o.c_str());
  for (const std::string& lib : RuntimeInputs()) args.push_back(lib.c_str());
  std::string messages;
  llvm::raw_string_ostream err(messages);
  absl::MutexLock lock(&lld_mu);
  if (lld_unusable) return absl::UnavailableError("lld cannot run again in this process");
  // lld exits through CrashRecoveryContext on fatal errors instead of ending the process.
  bool linked = false;
  llvm::CrashRecoveryContext crc;
  const bool returned = crc.RunSafely([&] {
    linked = lld::elf::link(args, llvm::nulls(), err, /*exitEarly=*/false,
                            /*disableOutput=*/false);
  });
  lld::CommonLinkerContext::destroy();
  if (!returned) {
    lld_unusable = true;
    return absl::UnavailableError(absl::StrCat("lld stopped: ", err.str()));
  }
  if (!linked) {
    return absl::InternalError(
        absl::StrCat("link a shared library (", out_path, ") failed: ", err.str()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LinkSharedLibrary(const std::vector<std::string>& object_paths,
                               const std::string& out_path, LinkerKind kind) {
  if (kind == LinkerKind::kInProcess) {
    absl::Status s = LinkInProcess(object_paths, out_path);
    if (!absl::IsUnavailable(s)) return s;
  }
  std::vector<std::string> args = {"-shared", "-o", out_path};
  args.insert(args.end(), object_paths.begin(), object_paths.end());
  args.insert(args.end(), {"-lgomp", "-lm"});
  return RunCompilerDriver(args, out_path, "link a shared library");
}

absl::Status CompileCSource(const std::string& source_path, const std::string& object_path) {
  return RunCompilerDriver({"-c", "-O2", "-fPIC", "-std=c11", "-o", object_path, source_path},
                           object_path, "compile generated C");
}

}  // namespace tunefarm::codegen
