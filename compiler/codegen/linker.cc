#include "compiler/codegen/linker.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/scratch_dir.h"
#include "compiler/codegen/link_stubs.h"
#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

extern char** environ;

namespace tunefarm::codegen {
namespace {

// Runs the C compiler driver `driver` (the system's `cc`, or a cross compiler such as
// `aarch64-linux-gnu-gcc`) with `args`; `what` names the step and `out_path` the file it makes
// (its log is kept beside it while it runs).
absl::Status RunCompilerDriver(std::vector<std::string> args, const std::string& out_path,
                               const std::string& what, const std::string& driver = "cc") {
  std::vector<std::string> argv = {driver};
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
  int rc = posix_spawnp(&pid, driver.c_str(), &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    unlink(log_path.c_str());
    // A cross driver `<triple>-gcc` comes with Debian's gcc-<triple>.
    const std::string package = absl::EndsWith(driver, "-gcc")
                                    ? absl::StrCat("gcc-", driver.substr(0, driver.size() - 4))
                                    : "gcc";
    return absl::FailedPreconditionError(absl::StrCat("cannot run the C compiler driver `", driver,
                                                      "` to ", what, " (install ", package, ")"));
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

// libgcc's archive under `dir`/<gcc version>/ (helpers such as half-precision conversions
// for older CPUs), as `cc` links it; empty when that gcc is not installed.
std::string LibgccArchive(const std::string& dir) {
  for (const char* version : {"14", "13", "12", "11", "10"}) {
    std::string path = absl::StrCat(dir, "/", version, "/libgcc.a");
    if (access(path.c_str(), R_OK) == 0) return path;
  }
  return "";
}

// The libraries every host kernel library is linked against, found once per process: the
// ones this process runs with.
const std::vector<std::string>& HostRuntimeInputs() {
  static const std::vector<std::string>* inputs = [] {
    auto* v = new std::vector<std::string>;
    for (const std::string& path :
         {LibgccArchive(absl::StrCat("/usr/lib/gcc/", HostGnuTriple())),
          LoadedLibraryPath("libgomp.so.1"), LoadedLibraryPath("libm.so.6"),
          LoadedLibraryPath("libc.so.6")}) {
      if (!path.empty()) v->push_back(path);
    }
    return v;
  }();
  return *inputs;
}

// The same for another architecture, from Debian's cross toolchain for it (e.g.
// g++-aarch64-linux-gnu: libraries in /usr/aarch64-linux-gnu/lib, libgcc in
// /usr/lib/gcc-cross/aarch64-linux-gnu/12). FailedPrecondition: that toolchain is missing.
absl::StatusOr<std::vector<std::string>> FindCrossRuntimeInputs(const std::string& gnu_triple) {
  std::vector<std::string> inputs = {
      LibgccArchive(absl::StrCat("/usr/lib/gcc-cross/", gnu_triple))};
  for (const char* lib : {"libgomp.so.1", "libm.so.6", "libc.so.6"}) {
    inputs.push_back(absl::StrCat("/usr/", gnu_triple, "/lib/", lib));
  }
  for (const std::string& path : inputs) {
    if (path.empty() || access(path.c_str(), R_OK) != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "linking kernels for ", gnu_triple, " needs Debian's cross toolchain for it (",
          path.empty() ? "libgcc.a" : path, " is missing): apt-get install g++-", gnu_triple,
          " (deploy/setup.sh --arm64)"));
    }
  }
  return inputs;
}

absl::Mutex cross_inputs_mu;

// FindCrossRuntimeInputs, looked up once per architecture and process (every candidate's link
// and CheckCanLink ask); a toolchain installed later is seen after a restart.
absl::StatusOr<std::vector<std::string>> CrossRuntimeInputs(const std::string& gnu_triple) {
  static auto* found = new std::map<std::string, absl::StatusOr<std::vector<std::string>>>();
  absl::MutexLock lock(&cross_inputs_mu);
  auto it = found->find(gnu_triple);
  if (it == found->end()) {
    it = found->emplace(gnu_triple, FindCrossRuntimeInputs(gnu_triple)).first;
  }
  return it->second;
}

// lld keeps its state in globals: one link at a time per process.
absl::Mutex lld_mu;
// Set when lld reported that it cannot run again in this process.
bool lld_unusable ABSL_GUARDED_BY(lld_mu) = false;

// Links with lld in this process. Unavailable: lld cannot be used (any more) here, so the
// caller links with `cc` instead.
absl::Status LinkInProcess(const std::vector<std::string>& object_paths,
                           const std::string& out_path,
                           const std::vector<std::string>& runtime_inputs,
                           const std::string& soname = "") {
  std::vector<const char*> args = {"ld.lld",      "--build-id",       "--eh-frame-hdr", "-z",
                                   "noexecstack", "--hash-style=gnu", "--as-needed",    "-shared",
                                   "-o",          out_path.c_str()};
  if (!soname.empty()) args.insert(args.end(), {"-soname", soname.c_str()});
  for (const std::string& o : object_paths) args.push_back(o.c_str());
  for (const std::string& lib : runtime_inputs) args.push_back(lib.c_str());
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

// The link stubs of one architecture (link_stubs.h) and the symbols they define; no inputs
// when they could not be made (links then read the real libraries).
struct Stubs {
  std::vector<std::string> inputs;
  absl::flat_hash_set<std::string> symbols;
};

absl::StatusOr<Stubs> MakeStubs(const std::string& gnu_triple,
                                const std::vector<std::string>& real_inputs,
                                const absl::StatusOr<ScratchDir>& scratch) {
  if (!scratch.ok()) return scratch.status();
  const ScratchDir& dir = *scratch;
  Stubs stubs;
  for (const StubbedLibrary& lib : StubbedLibraries()) {
    std::string real;
    for (const std::string& path : real_inputs) {
      if (absl::EndsWith(path, "/" + lib.soname)) real = path;
    }
    if (real.empty()) return absl::NotFoundError(absl::StrCat("no ", lib.soname));
    absl::StatusOr<absl::flat_hash_set<std::string>> defined = DefinedDynamicSymbols(real);
    if (!defined.ok()) return defined.status();
    std::vector<std::string> symbols;
    for (const std::string& name : lib.symbols) {
      if (defined->contains(name)) symbols.push_back(name);
    }
    absl::StatusOr<std::string> object = StubObject(gnu_triple, symbols);
    if (!object.ok()) return object.status();
    // One directory for every architecture: the file names say which.
    const std::string object_path = dir.File(absl::StrCat(gnu_triple, "-", lib.soname, ".o"));
    std::ofstream(object_path, std::ios::binary) << *object;
    const std::string stub_path = dir.File(absl::StrCat(gnu_triple, "-", lib.soname));
    if (absl::Status s = LinkInProcess({object_path}, stub_path, {}, lib.soname); !s.ok()) {
      return s;
    }
    stubs.inputs.push_back(stub_path);
    stubs.symbols.insert(symbols.begin(), symbols.end());
  }
  return stubs;
}

absl::Mutex stubs_mu;

// The stubs of `gnu_triple` (x86_64 and aarch64; none for 32-bit arm), made on first use.
const Stubs& StubsFor(const std::string& gnu_triple, const std::vector<std::string>& real_inputs) {
  // Removed at exit with the other static objects.
  static const absl::StatusOr<ScratchDir> dir = ScratchDir::Make("tunefarm-stubs");
  static auto* made = new std::map<std::string, Stubs>();
  absl::MutexLock lock(&stubs_mu);
  auto it = made->find(gnu_triple);
  if (it == made->end()) {
    Stubs stubs;
    if (gnu_triple == "x86_64-linux-gnu" || gnu_triple == "aarch64-linux-gnu") {
      absl::StatusOr<Stubs> s = MakeStubs(gnu_triple, real_inputs, dir);
      if (s.ok()) stubs = *std::move(s);
    }
    it = made->emplace(gnu_triple, std::move(stubs)).first;
  }
  return it->second;
}

// The runtime inputs for linking `object_paths`: the stubs when they define every symbol the
// objects leave unresolved, the real libraries otherwise (or when an object is unreadable:
// lld then says why).
const std::vector<std::string>& RuntimeInputsFor(const std::vector<std::string>& object_paths,
                                                 const std::string& gnu_triple,
                                                 const std::vector<std::string>& real_inputs) {
  const Stubs& stubs = StubsFor(gnu_triple, real_inputs);
  if (stubs.inputs.empty()) return real_inputs;
  absl::StatusOr<absl::flat_hash_set<std::string>> unresolved = UnresolvedSymbols(object_paths);
  if (!unresolved.ok()) return real_inputs;
  for (const std::string& name : *unresolved) {
    if (!stubs.symbols.contains(name)) return real_inputs;
  }
  return stubs.inputs;
}

}  // namespace

std::string HostGnuTriple() {
#if defined(__x86_64__)
  return "x86_64-linux-gnu";
#elif defined(__aarch64__)
  return "aarch64-linux-gnu";
#else
  return "unknown";
#endif
}

absl::StatusOr<std::string> GnuTripleOf(const std::string& llvm_triple) {
  if (llvm_triple.empty()) return HostGnuTriple();
  llvm::Triple t(llvm::Triple::normalize(llvm_triple));
  if (t.getOS() != llvm::Triple::Linux) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernels link for Linux only; target triple '", llvm_triple, "'"));
  }
  // The environment picks the C library and the calling convention the objects follow; the
  // runtime libraries linked in must agree (Debian's armhf libraries pass floats in VFP
  // registers, a soft-float "gnueabi" object in integer ones).
  const llvm::Triple::EnvironmentType env = t.getEnvironment();
  const bool gnu = env == llvm::Triple::GNU || env == llvm::Triple::UnknownEnvironment;
  switch (t.getArch()) {
    case llvm::Triple::x86_64:
    case llvm::Triple::aarch64: {
      const std::string name = t.getArch() == llvm::Triple::x86_64 ? "x86_64" : "aarch64";
      if (!gnu) {
        return absl::InvalidArgumentError(
            absl::StrCat("kernels for ", name, " link against Debian's glibc (", name,
                         "-linux-gnu); target triple '", llvm_triple, "' names the environment '",
                         std::string(t.getEnvironmentName()), "'"));
      }
      return absl::StrCat(name, "-linux-gnu");
    }
    case llvm::Triple::arm:
      if (env != llvm::Triple::GNUEABIHF) {
        return absl::InvalidArgumentError(
            absl::StrCat("32-bit Arm kernels link against Debian's hard-float libraries "
                         "(arm-linux-gnueabihf); target triple '",
                         llvm_triple, "' is not gnueabihf (write e.g. armv7l-linux-gnueabihf)"));
      }
      return std::string("arm-linux-gnueabihf");
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("no Debian toolchain is known for target triple '", llvm_triple,
                       "' (x86_64, aarch64 and arm hard-float Linux are)"));
  }
}

absl::Status CheckCanLink(const std::string& triple) {
  absl::StatusOr<std::string> gnu = GnuTripleOf(triple);
  if (!gnu.ok()) return gnu.status();
  if (*gnu == HostGnuTriple()) return absl::OkStatus();
  return CrossRuntimeInputs(*gnu).status();
}

absl::Status LinkSharedLibrary(const std::vector<std::string>& object_paths,
                               const std::string& out_path, LinkerKind kind,
                               const std::string& triple) {
  absl::StatusOr<std::string> gnu = GnuTripleOf(triple);
  if (!gnu.ok()) return gnu.status();
  const bool host = *gnu == HostGnuTriple();
  std::vector<std::string> cross_inputs;
  if (!host) {
    absl::StatusOr<std::vector<std::string>> inputs = CrossRuntimeInputs(*gnu);
    if (!inputs.ok()) return inputs.status();
    cross_inputs = *std::move(inputs);
  }
  if (kind == LinkerKind::kInProcess) {
    absl::Status s = LinkInProcess(
        object_paths, out_path,
        RuntimeInputsFor(object_paths, *gnu, host ? HostRuntimeInputs() : cross_inputs));
    if (!absl::IsUnavailable(s)) return s;
  }
  std::vector<std::string> args = {"-shared", "-o", out_path};
  args.insert(args.end(), object_paths.begin(), object_paths.end());
  args.insert(args.end(), {"-lgomp", "-lm"});
  return RunCompilerDriver(args, out_path, "link a shared library",
                           host ? "cc" : absl::StrCat(*gnu, "-gcc"));
}

absl::Status CompileCSource(const std::string& source_path, const std::string& object_path) {
  return RunCompilerDriver({"-c", "-O2", "-fPIC", "-std=c11", "-o", object_path, source_path},
                           object_path, "compile generated C");
}

}  // namespace tunefarm::codegen
