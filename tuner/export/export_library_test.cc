// Export for a cuda target: the best recorded config of each workload becomes a kernel of one
// PTX module, with its launch in the header.
#include "tuner/export/export_library.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {
namespace {

std::string Slurp(const std::string& path) {
  std::stringstream s;
  s << std::ifstream(path).rdbuf();
  return s.str();
}

TEST(ExportLibrary, CudaTarget_WritesPtxModuleAndLaunchHeader) {
  const std::string dir = ::testing::TempDir();
  const std::string db_path = absl::StrCat(dir, "/gpu_export.db");
  std::remove(db_path.c_str());
  auto log = db::TuningLog::Open(db_path);
  ASSERT_TRUE(log.ok()) << log.status();
  std::vector<db::Workload> workloads;
  std::vector<db::Record> records;
  for (const auto& [args, dtype] : std::vector<std::pair<std::vector<int64_t>, std::string>>{
           {{64, 64, 32}, "float32"}, {{32, 16, 64}, "float16"}}) {
    auto task = MakeTask("dense", args, dtype, "cuda -arch=sm_90", "gpu-test");
    ASSERT_TRUE(task.ok()) << task.status();
    auto config = task->space->Get(task->space->size() / 3);
    ASSERT_TRUE(config.ok());
    db::Record r;
    r.workload = task->DbWorkload();
    r.target = task->target.str;
    r.device_key = "gpu-test";
    r.config_index = config->index;
    r.config_json = config->ToJson();
    r.costs = {1e-5, 1.1e-5};
    r.timestamp = 1;
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

}  // namespace
}  // namespace tunefarm::tuner
