// The C printer against the JIT: random schedules of every test program are printed as C,
// built with the system C compiler into a shared library, run, and compared with both the
// LLVM-built kernel and the C++ reference, so the printer cannot drift from the IR's meaning.
#include "compiler/codegen/codegen_c.h"

#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/codegen/build.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/lower/lower.h"
#include "compiler/tests/programs.h"
#include "compiler/tests/random_schedule.h"
#include "gtest/gtest.h"

extern char** environ;

namespace tunefarm::testing {
namespace {

constexpr int kSchedulesPerProgram = 8;

// Runs `cc` with `args`; true on exit status 0.
bool RunCc(std::vector<std::string> args) {
  args.insert(args.begin(), "cc");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, "cc", nullptr, nullptr, argv.data(), environ) != 0) return false;
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Builds `source` into a shared library and returns the dlopen handle (null on failure).
void* BuildC(const std::string& source, const std::string& stem) {
  const std::string c = ::testing::TempDir() + "/" + stem + ".c";
  const std::string so = ::testing::TempDir() + "/" + stem + ".so";
  std::ofstream(c) << source;
  if (!RunCc({"-std=gnu11", "-O1", "-fopenmp", "-Wall", "-Werror", "-Wno-unused-variable",
              "-shared", "-fPIC", "-o", so, c, "-lm"})) {
    return nullptr;
  }
  return dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
}

// Calls a printed kernel with raw data pointers.
int32_t CallC(void* fn, std::vector<runtime::NDArray>& args) {
  std::vector<void*> p;
  for (auto& a : args) p.push_back(a.raw());
  switch (p.size()) {
    case 2:
      return reinterpret_cast<int32_t (*)(void*, void*)>(fn)(p[0], p[1]);
    case 3:
      return reinterpret_cast<int32_t (*)(void*, void*, void*)>(fn)(p[0], p[1], p[2]);
    case 4:
      return reinterpret_cast<int32_t (*)(void*, void*, void*, void*)>(fn)(p[0], p[1], p[2], p[3]);
  }
  return -1;
}

class CodegenCTest : public ::testing::TestWithParam<int> {};

TEST_P(CodegenCTest, RandomSchedules_CompiledCMatchesJitAndReference) {
  const Program p = AllPrograms()[GetParam()];
  for (uint64_t s = 1; s <= kSchedulesPerProgram; ++s) {
    const uint64_t seed = 7000 + s * 10 + GetParam();
    auto sch = schedule::Schedule::Create(p.outputs);
    ASSERT_TRUE(sch.ok());
    RandomScheduler gen(seed);
    ASSERT_TRUE(gen.Run(sch->get()).ok()) << gen.Log();
    auto f = lower::Lower(**sch, p.args(), "kernel", gen.RandomLowerOptions());
    if (!f.ok()) continue;  // A clean rejection; the property test covers those.
    auto source = codegen::PrintC(*f);
    ASSERT_TRUE(source.ok()) << source.status();
    SCOPED_TRACE(
        absl::StrCat(p.name, " seed ", seed, "\nschedule:\n", gen.Log(), "\nC:\n", *source));
    void* lib = BuildC(*source, absl::StrCat(p.name, "_", seed));
    ASSERT_NE(lib, nullptr) << "cc rejected the printed C";
    void* c_fn = dlsym(lib, "kernel");
    ASSERT_NE(c_fn, nullptr);
    auto jit = codegen::BuildJit({*f}, codegen::HostTarget());
    ASSERT_TRUE(jit.ok()) << jit.status();
    TfKernelFn jit_fn = *(*jit)->Lookup("kernel");

    std::vector<runtime::NDArray> c_args = MakeArgs(p, seed);
    std::vector<runtime::NDArray> jit_args = MakeArgs(p, seed);
    std::vector<runtime::NDArray> refs = ReferenceOutputs(p, c_args);
    ASSERT_EQ(CallC(c_fn, c_args), 0);
    std::vector<runtime::NDArray*> ptrs;
    for (auto& a : jit_args) ptrs.push_back(&a);
    ASSERT_TRUE(runtime::Call(jit_fn, ptrs).ok());
    for (size_t i = 0; i < refs.size(); ++i) {
      const size_t o = p.inputs.size() + i;
      EXPECT_LE(runtime::MaxRelError(c_args[o], jit_args[o], 1e-4, 1e-4), 1.0) << "C vs JIT";
      EXPECT_LE(runtime::MaxRelError(c_args[o], refs[i], 1e-4, 1e-4), 1.0) << "C vs reference";
    }
    dlclose(lib);
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, CodegenCTest, ::testing::Range(0, 6),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return AllPrograms()[info.param].name;
                         });

TEST(CodegenC, ScheduledGemm_ReadableSource) {
  const Program p = Matmul(64, 64, 32);
  auto sch = *schedule::Schedule::Create(p.outputs);
  te::Tensor C = p.outputs[0];
  te::Tensor cc = *sch->CacheWrite(C, "local");
  auto& c = (*sch)[C];
  auto t = *c.Tile(c.axis(0), c.axis(1), 8, 16);
  ASSERT_TRUE(c.Vectorize(t[3]).ok());
  ASSERT_TRUE(c.Parallel(t[0]).ok());
  auto& l = (*sch)[cc];
  ASSERT_TRUE(l.ComputeAt(c, t[1]).ok());
  ASSERT_TRUE(l.Reorder({l.reduce_axis(0), l.axis(0), l.axis(1)}).ok());
  ASSERT_TRUE(l.Vectorize(l.axis(1)).ok());
  auto f = lower::Lower(*sch, p.args(), "gemm");
  ASSERT_TRUE(f.ok()) << f.status();
  auto source = codegen::PrintC(*f);
  ASSERT_TRUE(source.ok()) << source.status();
  for (const char* want :
       {"int32_t gemm(float* restrict A, float* restrict B, float* restrict C)",
        "#pragma omp parallel for", "float C_local[128] __attribute__((aligned(64)));",
        "for (int32_t tf_lane = 0; tf_lane < 16; ++tf_lane)", "return 0;"}) {
    EXPECT_TRUE(absl::StrContains(*source, want)) << want << "\n" << *source;
  }
}

// Prints `f` (a kernel of `p`) as C, checks the source holds `want`, and checks the compiled C
// against the JIT and the reference.
void CheckPrintedC(const Program& p, const lower::LoweredFunc& f, const std::string& tag,
                   const std::string& want) {
  auto source = codegen::PrintC(f);
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_TRUE(absl::StrContains(*source, want)) << want << "\n" << *source;
  void* lib = BuildC(*source, tag);
  ASSERT_NE(lib, nullptr) << "cc rejected the printed C\n" << *source;
  void* c_fn = dlsym(lib, f.name.c_str());
  ASSERT_NE(c_fn, nullptr);
  auto jit = codegen::BuildJit({f}, codegen::HostTarget());
  ASSERT_TRUE(jit.ok()) << jit.status();
  TfKernelFn jit_fn = *(*jit)->Lookup(f.name);
  std::vector<runtime::NDArray> c_args = MakeArgs(p, 5);
  std::vector<runtime::NDArray> jit_args = MakeArgs(p, 5);
  std::vector<runtime::NDArray> refs = ReferenceOutputs(p, c_args);
  ASSERT_EQ(CallC(c_fn, c_args), 0);
  std::vector<runtime::NDArray*> ptrs;
  for (auto& a : jit_args) ptrs.push_back(&a);
  ASSERT_TRUE(runtime::Call(jit_fn, ptrs).ok());
  const size_t o = p.inputs.size();
  EXPECT_LE(runtime::MaxRelError(c_args[o], jit_args[o], 1e-4, 1e-4), 1.0) << *source;
  EXPECT_LE(runtime::MaxRelError(c_args[o], refs[0], 1e-4, 1e-4), 1.0) << *source;
  dlclose(lib);
}

// A reduce axis vectorized as a horizontal reduction prints as its lanes combined, and the
// printed kernel matches the JIT and the reference.
TEST(CodegenC, VectorizedReduction_MatchesJitAndReference) {
  const Program p = Matmul(8, 8, 16);
  auto sch = *schedule::Schedule::Create(p.outputs);
  auto& c = (*sch)[p.outputs[0]];
  ASSERT_TRUE(c.VectorizeReduction(c.reduce_axis(0)).ok());
  auto f = lower::Lower(*sch, p.args(), "kernel");
  ASSERT_TRUE(f.ok()) << f.status();
  CheckPrintedC(p, *f, "vectorized_reduction", "kernel");
}

// Software prefetches (Stage::Prefetch) print as __builtin_prefetch of the element's address,
// and the printed kernel matches the JIT and the reference.
TEST(CodegenC, Prefetch_PrintedAsBuiltin_MatchesJitAndReference) {
  const Program p = Matmul(6, 40, 70);
  auto sch = *schedule::Schedule::Create(p.outputs);
  auto& c = (*sch)[p.outputs[0]];
  auto ks = *c.Split(c.reduce_axis(0), 4);
  ASSERT_TRUE(c.Reorder({c.axis(0), ks.first, ks.second, c.axis(1)}).ok());
  ASSERT_TRUE(c.Prefetch(p.inputs[1], ks.first, 512).ok());
  auto f = lower::Lower(*sch, p.args(), "kernel");
  ASSERT_TRUE(f.ok()) << f.status();
  CheckPrintedC(p, *f, "prefetch", "__builtin_prefetch(&B[");
}

TEST(CodegenC, ThreadBinding_InvalidArgument) {
  const Program p = Matmul(8, 8, 8);
  auto sch = *schedule::Schedule::Create(p.outputs);
  auto& c = (*sch)[p.outputs[0]];
  ASSERT_TRUE(c.Bind(c.axis(0), "threadIdx.x").ok());
  auto f = lower::Lower(*sch, p.args(), "k");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(codegen::PrintC(*f).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tunefarm::testing
