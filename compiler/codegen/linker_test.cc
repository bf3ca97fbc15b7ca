#include "compiler/codegen/linker.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "compiler/codegen/build.h"
#include "compiler/codegen/codegen_llvm.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace tunefarm::codegen {
namespace {

using ir::DataType;
using ir::Var;
using runtime::NDArray;
using te::Tensor;

// y[i] = 2·x[i] + 1 over n elements, its loop parallel (so the object calls into libgomp)
// or not.
absl::StatusOr<std::string> AxpyObject(const std::string& name, int n, bool parallel,
                                       const Target& target = HostTarget()) {
  Tensor X = te::Placeholder({n}, DataType::Float(32), "X");
  Tensor Y = *te::Compute(
      {n}, [&](const std::vector<Var>& i) { return X(i[0]) * 2.0f + 1.0f; }, "Y");
  auto sch = *schedule::Schedule::Create({Y});
  if (parallel) {
    auto& y = (*sch)[Y];
    if (absl::Status s = y.Parallel(y.axis(0)); !s.ok()) return s;
  }
  auto f = lower::Lower(*sch, {X, Y}, name);
  if (!f.ok()) return f.status();
  return BuildObject({*f}, target);
}

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A library's inputs: the kernel object `name`.o and the kernel runtime for `target` beside it.
std::vector<std::string> WithRuntime(const std::string& name, const std::string& object,
                                     const Target& target = HostTarget()) {
  absl::StatusOr<std::string> runtime = KernelRuntimeObject(target);
  EXPECT_TRUE(runtime.ok()) << runtime.status();
  return {WriteTemp(name + ".o", object),
          WriteTemp(name + ".runtime.o", runtime.ok() ? *runtime : "")};
}

// The DT_NEEDED names of a loaded library.
std::vector<std::string> NeededLibraries(void* lib) {
  struct link_map* map = nullptr;
  std::vector<std::string> out;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return out;
  const char* strtab = nullptr;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_STRTAB) strtab = reinterpret_cast<const char*>(d->d_un.d_ptr);
  }
  if (strtab == nullptr) return out;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_NEEDED) out.push_back(strtab + d->d_un.d_val);
  }
  return out;
}

// Whether a loaded library requires symbol versions (DT_VERNEED): a library linked against the
// real glibc does, one linked against the link stubs (link_stubs.h) does not.
bool HasVersionNeeds(void* lib) {
  struct link_map* map = nullptr;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) return false;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_VERNEED) return true;
  }
  return false;
}

// An object for this machine whose function `tf_cbrt` calls libm's cbrtf, a function no link
// stub has.
absl::StatusOr<std::string> CbrtObject() {
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic err;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(
      "declare float @cbrtf(float)\n"
      "define float @tf_cbrt(float %x) {\n"
      "  %y = call float @cbrtf(float %x)\n"
      "  ret float %y\n"
      "}\n",
      err, ctx);
  if (m == nullptr) return absl::InternalError(err.getMessage().str());
  auto tm = MakeTargetMachine(HostTarget());
  if (!tm.ok()) return tm.status();
  m->setTargetTriple((*tm)->getTargetTriple().str());
  m->setDataLayout((*tm)->createDataLayout());
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if ((*tm)->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile)) {
    return absl::InternalError("cannot emit an object");
  }
  pm.run(*m);
  return std::string(buffer.begin(), buffer.end());
}

// Loads `so_path`, runs kernel `name` on n elements and checks y = 2x + 1.
void ExpectKernelRuns(const std::string& so_path, const std::string& name, int n) {
  void* lib = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto fn = reinterpret_cast<TfKernelFn>(dlsym(lib, name.c_str()));
  ASSERT_NE(fn, nullptr);
  auto x = *NDArray::Empty({n}, DataType::Float(32));
  auto y = *NDArray::Empty({n}, DataType::Float(32));
  for (int i = 0; i < n; ++i) x.data<float>()[i] = static_cast<float>(i);
  ASSERT_TRUE(runtime::Call(fn, {&x, &y}).ok());
  for (int i = 0; i < n; ++i) ASSERT_EQ(y.data<float>()[i], 2.0f * i + 1.0f) << i;
  dlclose(lib);
}

// Both linkers make a library that loads, runs, and names libgomp as a dependency when the
// kernel has a parallel loop, as `cc -shared ... -lgomp` always did.
TEST(Linker, InProcessAndDriver_LinkLoadableLibraries) {
  auto obj = AxpyObject("axpy_par", 1000, /*parallel=*/true);
  ASSERT_TRUE(obj.ok()) << obj.status();
  const std::vector<std::string> inputs = WithRuntime("axpy_par", *obj);
  for (LinkerKind kind : {LinkerKind::kInProcess, LinkerKind::kDriver}) {
    const std::string so_path = ::testing::TempDir() + "/axpy_par_" +
                                (kind == LinkerKind::kInProcess ? "lld" : "cc") + ".so";
    ASSERT_TRUE(LinkSharedLibrary(inputs, so_path, kind).ok());
    ExpectKernelRuns(so_path, "axpy_par", 1000);
    void* lib = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr);
    std::vector<std::string> needed = NeededLibraries(lib);
    EXPECT_NE(std::find(needed.begin(), needed.end(), "libgomp.so.1"), needed.end())
        << (kind == LinkerKind::kInProcess ? "lld" : "cc");
    dlclose(lib);
  }
}

// Kernels that call only what the link stubs define link against the stubs: no symbol versions
// required, the same libraries by soname, and the kernel runs. An object that calls anything
// else (libm's cbrtf) links against the real libraries and runs too.
TEST(Linker, StubsForKernels_RealLibrariesForAnythingElse) {
  auto obj = AxpyObject("axpy_stubbed", 500, /*parallel=*/true);
  ASSERT_TRUE(obj.ok()) << obj.status();
  const std::string so_path = ::testing::TempDir() + "/axpy_stubbed.so";
  ASSERT_TRUE(LinkSharedLibrary(WithRuntime("axpy_stubbed", *obj), so_path).ok());
  ExpectKernelRuns(so_path, "axpy_stubbed", 500);
  void* lib = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  EXPECT_FALSE(HasVersionNeeds(lib));
  std::vector<std::string> needed = NeededLibraries(lib);
  EXPECT_NE(std::find(needed.begin(), needed.end(), "libgomp.so.1"), needed.end());
  EXPECT_NE(std::find(needed.begin(), needed.end(), "libc.so.6"), needed.end());  // free
  dlclose(lib);

  auto cbrt = CbrtObject();
  ASSERT_TRUE(cbrt.ok()) << cbrt.status();
  const std::string cbrt_so = ::testing::TempDir() + "/cbrt.so";
  ASSERT_TRUE(LinkSharedLibrary({WriteTemp("cbrt.o", *cbrt)}, cbrt_so).ok());
  lib = dlopen(cbrt_so.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  EXPECT_TRUE(HasVersionNeeds(lib));
  needed = NeededLibraries(lib);
  EXPECT_NE(std::find(needed.begin(), needed.end(), "libm.so.6"), needed.end());
  auto fn = reinterpret_cast<float (*)(float)>(dlsym(lib, "tf_cbrt"));
  ASSERT_NE(fn, nullptr);
  EXPECT_FLOAT_EQ(fn(27.0f), 3.0f);
  dlclose(lib);
}

// A file that is not an object is the linker's error, with its message, and the next link in
// the same process works.
TEST(Linker, GarbageInput_IsInternalErrorAndLinkerStaysUsable) {
  const std::string bad = WriteTemp("garbage.o", std::string("\x7f"
                                                             "ELF not really",
                                                             15));
  absl::Status s = LinkSharedLibrary({bad}, ::testing::TempDir() + "/garbage.so");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_NE(s.message().find("garbage.o"), std::string::npos) << s;
  EXPECT_EQ(
      LinkSharedLibrary({::testing::TempDir() + "/missing.o"}, ::testing::TempDir() + "/missing.so")
          .code(),
      absl::StatusCode::kInternal);
  auto obj = AxpyObject("axpy_after", 64, /*parallel=*/false);
  ASSERT_TRUE(obj.ok());
  const std::string so_path = ::testing::TempDir() + "/axpy_after.so";
  ASSERT_TRUE(LinkSharedLibrary(WithRuntime("axpy_after", *obj), so_path).ok());
  ExpectKernelRuns(so_path, "axpy_after", 64);
}

TEST(Linker, GnuTripleOf_MapsLinuxTriples_RefusesOthers) {
  EXPECT_EQ(*GnuTripleOf(""), HostGnuTriple());
  EXPECT_EQ(*GnuTripleOf("aarch64-unknown-linux-gnu"), "aarch64-linux-gnu");
  EXPECT_EQ(*GnuTripleOf("aarch64-linux-gnu"), "aarch64-linux-gnu");
  EXPECT_EQ(*GnuTripleOf("armv7a-linux-gnueabihf"), "arm-linux-gnueabihf");
  EXPECT_EQ(GnuTripleOf("x86_64-pc-windows-msvc").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GnuTripleOf("riscv64-unknown-linux-gnu").status().code(),
            absl::StatusCode::kInvalidArgument);
  // What a 32-bit Arm board's device server makes its default target with (uname -m).
  EXPECT_EQ(*GnuTripleOf("armv7l-linux-gnueabihf"), "arm-linux-gnueabihf");
  EXPECT_EQ(*GnuTripleOf("armv6l-unknown-linux-gnueabihf"), "arm-linux-gnueabihf");
  EXPECT_EQ(*GnuTripleOf("armv8l-linux-gnueabihf"), "arm-linux-gnueabihf");
  EXPECT_EQ(*GnuTripleOf("x86_64-unknown-linux"), "x86_64-linux-gnu");
}

TEST(Linker, GnuTripleOf_EnvironmentMustMatchDebiansLibraries) {
  // LLVM's arm-linux-gnu and arm-linux-gnueabi are soft-float: they cannot call Debian's armhf
  // libraries, so they are refused, and the message says what is needed.
  for (const char* soft : {"armv7l-linux-gnu", "armv7a-linux-gnueabi", "arm-linux-gnu"}) {
    absl::StatusOr<std::string> gnu = GnuTripleOf(soft);
    EXPECT_EQ(gnu.status().code(), absl::StatusCode::kInvalidArgument) << soft;
    EXPECT_NE(gnu.status().message().find("gnueabihf"), std::string::npos) << gnu.status();
  }
  for (const char* other : {"aarch64-linux-android", "aarch64-linux-musl", "x86_64-linux-musl",
                            "x86_64-linux-gnux32", "armv7a-linux-androideabi"}) {
    EXPECT_EQ(GnuTripleOf(other).status().code(), absl::StatusCode::kInvalidArgument) << other;
  }
}

TEST(Linker, CheckCanLink_HostAndInstalledCrossToolchain_UnknownRefused) {
  EXPECT_TRUE(CheckCanLink("").ok());
  EXPECT_TRUE(CheckCanLink(HostGnuTriple()).ok());
  // deploy/setup.sh --tests installs the aarch64 cross toolchain.
  absl::Status arm64 = CheckCanLink("aarch64-linux-gnu");
  EXPECT_TRUE(arm64.ok()) << arm64 << " (run deploy/setup.sh --tests, which installs it)";
  EXPECT_TRUE(CheckCanLink("aarch64-linux-gnu").ok());  // the cached answer
  EXPECT_EQ(CheckCanLink("riscv64-unknown-linux-gnu").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckCanLink("armv7l-linux-gnu").code(), absl::StatusCode::kInvalidArgument);
}

// The cross driver (`aarch64-linux-gnu-gcc`) missing: the message names its Debian package.
TEST(Linker, CrossDriverMissing_SaysWhichGccToInstall) {
  const char* old_path = std::getenv("PATH");
  const std::string saved = old_path != nullptr ? old_path : "";
  setenv("PATH", "/nonexistent", 1);
  absl::Status s = LinkSharedLibrary({"/nonexistent/kernel.o"}, ::testing::TempDir() + "/x.so",
                                     LinkerKind::kDriver, "aarch64-linux-gnu");
  setenv("PATH", saved.c_str(), 1);
  if (absl::IsFailedPrecondition(s) && s.message().find("cross toolchain") != std::string::npos) {
    GTEST_SKIP() << "no aarch64 cross toolchain: " << s;
  }
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("install gcc-aarch64-linux-gnu"), std::string::npos) << s;
}

// A board's kernel links on this machine against Debian's aarch64 cross toolchain (which the
// test command installs: deploy/setup.sh --tests): an aarch64 shared object that needs the
// same runtime libraries by soname as a host kernel, loadable on the board.
TEST(Linker, Aarch64Kernel_LinksAgainstCrossToolchain) {
  auto target = ParseTarget("llvm -mtriple=aarch64-linux-gnu -mattr=+neon");
  ASSERT_TRUE(target.ok()) << target.status();
  auto obj = AxpyObject("axpy_arm", 256, /*parallel=*/true, *target);
  ASSERT_TRUE(obj.ok()) << obj.status();
  const std::string so_path = ::testing::TempDir() + "/axpy_arm.so";
  const std::vector<std::string> inputs = WithRuntime("axpy_arm", *obj, *target);
  absl::Status linked = LinkSharedLibrary(inputs, so_path, LinkerKind::kInProcess, target->triple);
  ASSERT_TRUE(linked.ok()) << linked << " (run deploy/setup.sh --tests, which installs it)";
  std::ifstream in(so_path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GE(bytes.size(), sizeof(Elf64_Ehdr));
  Elf64_Ehdr header;
  memcpy(&header, bytes.data(), sizeof(header));
  EXPECT_EQ(header.e_machine, EM_AARCH64);
  EXPECT_EQ(header.e_type, ET_DYN);
  EXPECT_NE(bytes.find("libgomp.so.1"), std::string::npos);  // DT_NEEDED by soname
  // The driver route (aarch64-linux-gnu-gcc) makes the same kind of file.
  const std::string driver_path = ::testing::TempDir() + "/axpy_arm_driver.so";
  ASSERT_TRUE(LinkSharedLibrary(inputs, driver_path, LinkerKind::kDriver, target->triple).ok());
}

// Builds from several threads at once (the builder pool) all link correctly.
TEST(Linker, ConcurrentBuilds_AllLinkAndRun) {
  constexpr int kThreads = 4, kEach = 3;
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  std::vector<std::string> libs(kThreads * kEach);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string name = "axpy_" + std::to_string(t) + "_" + std::to_string(i);
        auto obj = AxpyObject(name, 128 + t, /*parallel=*/i % 2 == 0);
        if (!obj.ok()) {
          ++failed;
          continue;
        }
        const std::string so_path = ::testing::TempDir() + "/" + name + ".so";
        absl::Status linked = LinkSharedLibrary(WithRuntime(name, *obj), so_path);
        if (!linked.ok()) {
          ++failed;
          ADD_FAILURE() << name << ": " << linked;
        }
        libs[t * kEach + i] = so_path;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  ASSERT_EQ(failed.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kEach; ++i) {
      ExpectKernelRuns(libs[t * kEach + i], "axpy_" + std::to_string(t) + "_" + std::to_string(i),
                       128 + t);
    }
  }
}

}  // namespace
}  // namespace tunefarm::codegen
