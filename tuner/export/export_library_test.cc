// Export for a cuda target: the best recorded config of each workload becomes a kernel of one
// PTX module, with its launch in the header. Export for the host: a kernel whose weight was
// packed ahead of time comes with its pack function, and the two give the operator's result.
#include "tuner/export/export_library.h"

#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "compiler/runtime/ndarray.h"
#include "db/json.h"
#include "gtest/gtest.h"
#include "tuner/templates/template_testing.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {
namespace {

std::string Slurp(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

// A new, empty tuning log in the test's temporary directory.
absl::StatusOr<std::unique_ptr<db::TuningLog>> FreshLog(const std::string& name) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return db::TuningLog::Open(path);
}

// A measured record of `config` on the task's device key.
db::Record MeasuredRecord(const TuneTask& task, const Config& config) {
  db::Record r;
  r.workload = task.DbWorkload();
  r.target = task.target.str;
  r.device_key = task.device_key;
  r.config_index = config.index;
  r.config_json = config.ToJson();
  r.costs = {1e-5, 1.1e-5};
  r.timestamp = 1;
  return r;
}

TEST(ExportLibrary, CudaTarget_WritesPtxModuleAndLaunchHeader) {
  const std::string dir = ::testing::TempDir();
  auto log = FreshLog("gpu_export.db");
  ASSERT_TRUE(log.ok()) << log.status();
  std::vector<db::Workload> workloads;
  std::vector<db::Record> records;
  for (const auto& [args, dtype] : std::vector<std::pair<std::vector<int64_t>, std::string>>{
           {{64, 64, 32}, "float32"}, {{32, 16, 64}, "float16"}}) {
    auto task = MakeTask("dense", args, dtype, "cuda -arch=sm_90", "gpu-test");
    ASSERT_TRUE(task.ok()) << task.status();
    auto config = task->space->Get(task->space->size() / 3);
    ASSERT_TRUE(config.ok());
    db::Record r = MeasuredRecord(*task, *config);
    records.push_back(r);
    workloads.push_back(r.workload);
  }
  ASSERT_TRUE((*log)->Insert(records).ok());
  ExportOptions options;
  options.target = "cuda -arch=sm_90";
  options.library_path = absl::StrCat(dir, "/kernels.ptx");
  options.header_path = absl::StrCat(dir, "/kernels.h");
  auto exported = ExportLibrary(**log, workloads, options);
  ASSERT_TRUE(exported.ok()) << exported.status();
  ASSERT_EQ(exported->size(), 2u);
  std::string ptx = Slurp(options.library_path);
  std::string header = Slurp(options.header_path);
  for (const ExportedKernel& k : *exported) {
    EXPECT_TRUE(absl::StrContains(ptx, absl::StrCat(".entry ", k.symbol))) << k.symbol;
    EXPECT_TRUE(absl::StrContains(header, absl::StrCat("static const tf_gpu_kernel ", k.symbol)))
        << header;
  }
  EXPECT_TRUE(absl::StrContains(ptx, ".target sm_90"));
  EXPECT_TRUE(absl::StrContains(header, "cuLaunchKernel"));
  EXPECT_TRUE(absl::StrContains(header, "in A float16[32x64]")) << header;
}

// A best record whose config no longer matches its index in today's space (the space gained a
// knob since it was measured) is refused with FailedPrecondition, not exported as another
// schedule.
TEST(ExportLibrary, RecordFromAnOlderSpace_FailedPrecondition) {
  const std::string dir = ::testing::TempDir();
  auto log = FreshLog("stale_export.db");
  ASSERT_TRUE(log.ok()) << log.status();
  auto task = MakeTask("dense", {64, 64, 32}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok()) << task.status();
  auto config = task->space->Get(task->space->size() / 3);
  ASSERT_TRUE(config.ok());
  db::Record r = MeasuredRecord(*task, *config);
  r.config_json = R"({"index": 1, "tile_y": [-1, 999]})";
  ASSERT_TRUE((*log)->Insert({r}).ok());
  ExportOptions options;
  options.target = "llvm";
  options.library_path = absl::StrCat(dir, "/libstale.so");
  options.header_path = absl::StrCat(dir, "/stale.h");
  auto exported = ExportLibrary(**log, {r.workload}, options);
  ASSERT_FALSE(exported.ok());
  EXPECT_EQ(exported.status().code(), absl::StatusCode::kFailedPrecondition) << exported.status();
  EXPECT_TRUE(absl::StrContains(exported.status().message(), "older version of its config space"))
      << exported.status();
}

// A record imported from an AutoTVM log carries its knob values without the index: when they
// are what the index means today, it exports.
TEST(ExportLibrary, RecordWithKnobsOnly_MatchingTodaysSpace_Exports) {
  const std::string dir = ::testing::TempDir();
  auto log = FreshLog("knobs_only_export.db");
  ASSERT_TRUE(log.ok()) << log.status();
  auto task = MakeTask("dense", {64, 64, 32}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok()) << task.status();
  auto config = task->space->Get(task->space->size() / 3);
  ASSERT_TRUE(config.ok());
  db::Record r = MeasuredRecord(*task, *config);
  auto knobs = db::ParseJson(r.config_json);
  ASSERT_TRUE(knobs.ok()) << knobs.status();
  knobs->mutable_struct_value()->mutable_fields()->erase("index");
  // What import-log keeps of TVM's record beside the translated knobs (db/autotvm_tasks.h).
  (*knobs->mutable_struct_value()->mutable_fields())["tvm_index"].set_number_value(1234);
  (*knobs->mutable_struct_value()->mutable_fields())["tvm_task"].set_string_value(
      "dense_nopack.x86");
  r.config_json = db::CanonicalJson(*knobs);
  ASSERT_TRUE((*log)->Insert({r}).ok());
  ExportOptions options;
  options.target = "llvm";
  options.library_path = absl::StrCat(dir, "/libknobs.so");
  options.header_path = absl::StrCat(dir, "/knobs.h");
  auto exported = ExportLibrary(**log, {r.workload}, options);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(exported->size(), 1u);
}

// An imported AutoTVM record whose knobs have no counterpart here (stored with a negative
// index) cannot be rebuilt: FailedPrecondition that says so.
TEST(ExportLibrary, UntranslatedAutotvmRecord_FailedPreconditionSaysWhy) {
  const std::string dir = ::testing::TempDir();
  auto log = FreshLog("untranslated_export.db");
  ASSERT_TRUE(log.ok()) << log.status();
  auto task = MakeTask("dense", {64, 64, 32}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok()) << task.status();
  auto config = task->space->Get(0);
  ASSERT_TRUE(config.ok());
  db::Record r = MeasuredRecord(*task, *config);
  r.config_index = -1 - 77;
  r.config_json = R"({"tvm_index":77,"tvm_task":"dense_pack.x86","tvm_untranslated":true})";
  ASSERT_TRUE((*log)->Insert({r}).ok());
  ExportOptions options;
  options.target = "llvm";
  options.library_path = absl::StrCat(dir, "/libuntranslated.so");
  options.header_path = absl::StrCat(dir, "/untranslated.h");
  auto exported = ExportLibrary(**log, {r.workload}, options);
  ASSERT_FALSE(exported.ok());
  EXPECT_EQ(exported.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(exported.status().message(), "imported from an AutoTVM log"))
      << exported.status();
}

// `header` without its C block comments (each ends at the first "*/" after its "/*").
std::string CodeOf(const std::string& header) {
  std::string code;
  for (size_t at = 0; at < header.size();) {
    const size_t open = header.find("/*", at);
    code += header.substr(at, open == std::string::npos ? std::string::npos : open - at);
    if (open == std::string::npos) break;
    const size_t close = header.find("*/", open + 2);
    if (close == std::string::npos) break;
    at = close + 2;
  }
  return code;
}

// Text of the log (here a kept AutoTVM entity, as an import of any line could once store it)
// that ends the header's comment stays inside the comment, on the CPU and the cuda path.
TEST(ExportLibrary, ConfigTextEndingTheComment_StaysInTheComment) {
  constexpr char kPwn[] = "*/ __attribute__((constructor)) static void pwn(void){} /*";
  for (const std::string target : {"llvm", "cuda -arch=sm_90"}) {
    const std::string dir = ::testing::TempDir();
    auto log = FreshLog("pwn_export.db");
    ASSERT_TRUE(log.ok()) << log.status();
    auto task = MakeTask("dense", {64, 64, 32}, "float32", target, "test");
    ASSERT_TRUE(task.ok()) << task.status();
    auto config = task->space->Get(task->space->size() / 3);
    ASSERT_TRUE(config.ok());
    db::Record r = MeasuredRecord(*task, *config);
    auto knobs = db::ParseJson(r.config_json);
    ASSERT_TRUE(knobs.ok()) << knobs.status();
    auto entity = db::ParseJson(absl::StrCat(R"([["tile_y",")", kPwn, R"(",[-1,8]]])"));
    ASSERT_TRUE(entity.ok()) << entity.status();
    (*knobs->mutable_struct_value()->mutable_fields())["tvm_entity"] = *entity;
    r.config_json = db::CanonicalJson(*knobs);
    ASSERT_TRUE((*log)->Insert({r}).ok());
    ExportOptions options;
    options.target = target;
    options.library_path = absl::StrCat(dir, "/libpwn.so");
    options.header_path = absl::StrCat(dir, "/pwn.h");
    auto exported = ExportLibrary(**log, {r.workload}, options);
    ASSERT_TRUE(exported.ok()) << exported.status();
    const std::string header = Slurp(options.header_path);
    EXPECT_TRUE(absl::StrContains(header, "*\\/ __attribute__((constructor))")) << header;
    EXPECT_FALSE(absl::StrContains(CodeOf(header), "pwn")) << CodeOf(header);
    EXPECT_TRUE(absl::StrContains(CodeOf(header), (*exported)[0].symbol)) << CodeOf(header);
  }
}

TEST(ExportLibrary, WeightPackedAheadOfTime_PackFunctionExportedAndResultMatches) {
  const std::string dir = ::testing::TempDir();
  auto log = FreshLog("pack_export.db");
  ASSERT_TRUE(log.ok()) << log.status();
  auto task = MakeProgramTask("ffn",
                              "A = input(float32, [M, K])\nW = weight(float32, [N, K])\n"
                              "C[i, j] = sum(k: A[i, k] * W[j, k])\nY[i, j] = max(C[i, j], 0.0)\n",
                              {{"M", 5}, {"N", 37}, {"K", 19}}, "llvm", "cpu-test");
  ASSERT_TRUE(task.ok()) << task.status();
  const int pack = task->space->KnobIndex("Y.pack_W");
  ASSERT_GE(pack, 0) << task->space->Describe();
  std::vector<int64_t> choices = task->space->Decompose(task->space->size() / 3);
  choices[pack] = 2;  // Packed once, ahead of time.
  auto config = task->space->Get(task->space->Compose(choices));
  ASSERT_TRUE(config.ok());
  db::Record r = MeasuredRecord(*task, *config);
  ASSERT_TRUE((*log)->Insert({r}).ok());
  const std::string hash =
      task->workload.template_name.substr(task->workload.template_name.size() - 16);
  ASSERT_TRUE((*log)->SaveProgram(hash, "ffn", ProgramTextOf(*task), 1).ok());

  ExportOptions options;
  options.target = "llvm";
  options.library_path = absl::StrCat(dir, "/libpacked.so");
  options.header_path = absl::StrCat(dir, "/packed.h");
  auto exported = ExportLibrary(**log, {r.workload}, options);
  ASSERT_TRUE(exported.ok()) << exported.status();
  ASSERT_EQ(exported->size(), 1u);
  const ExportedKernel& k = (*exported)[0];
  ASSERT_EQ(k.pack_symbols.size(), 1u);
  EXPECT_EQ(k.pack_symbols[0], k.symbol + "_pack_W");
  const std::string header = Slurp(options.header_path);
  EXPECT_TRUE(absl::StrContains(header, absl::StrCat("int32_t ", k.pack_symbols[0], "(")))
      << header;
  EXPECT_TRUE(absl::StrContains(header, "in W float32[37x19]")) << header;

  // The deployment: pack W once, then call the kernel with the packed copy in W's place.
  void* lib = dlopen(options.library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto kernel = reinterpret_cast<TfKernelFn>(dlsym(lib, k.symbol.c_str()));
  auto pack_w = reinterpret_cast<TfKernelFn>(dlsym(lib, k.pack_symbols[0].c_str()));
  ASSERT_NE(kernel, nullptr);
  ASSERT_NE(pack_w, nullptr);
  constexpr uint64_t kSeed = 3;
  auto ref = RunConfig(*task->tmpl, task->workload, codegen::HostTarget(), nullptr, kSeed);
  ASSERT_TRUE(ref.ok()) << ref.status();
  auto a = runtime::NDArray::Empty({5, 19}, ir::DataType::Float(32));
  auto w = runtime::NDArray::Empty({37, 19}, ir::DataType::Float(32));
  auto y = runtime::NDArray::Empty({5, 37}, ir::DataType::Float(32));
  auto tile = config->Split("Y.tile_j");
  ASSERT_TRUE(a.ok() && w.ok() && y.ok() && tile.ok());
  const int64_t b = (*tile)[1];
  auto packed = runtime::NDArray::Empty({(37 + b - 1) / b, 19, b}, ir::DataType::Float(32));
  ASSERT_TRUE(packed.ok());
  a->FillRandom(kSeed);
  w->FillRandom(kSeed + 1);
  ASSERT_TRUE(runtime::Call(pack_w, {&*w, &*packed}).ok());
  ASSERT_TRUE(runtime::Call(kernel, {&*a, &*packed, &*y}).ok());
  EXPECT_LE(runtime::MaxRelError(*y, ref->back(), 1e-4, 1e-4), 1.0);
  // The unpacked weight is refused by the kernel's shape check, not read out of bounds.
  EXPECT_FALSE(runtime::Call(kernel, {&*a, &*w, &*y}).ok());
  dlclose(lib);
}

}  // namespace
}  // namespace tunefarm::tuner
