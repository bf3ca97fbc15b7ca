// ExportLibraryBytes: the job service's export returns a loadable library and its header as
// bytes, leaves no temporary files, and refuses bad requests with documented codes.
#include "tuner/service/library_export.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {
namespace {

// A tuning log (fresh file under the test's temporary directory) holding one measured record
// of dense 16x16x16 on the host, config 0.
class LibraryExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(::testing::TempDir(), "/library_export_", ++counter_);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto log = db::TuningLog::Open(absl::StrCat(dir_, "/tuning.db"));
    ASSERT_TRUE(log.ok()) << log.status();
    log_ = *std::move(log);
    auto task = MakeTask("dense", {16, 16, 16}, "float32", "llvm", "cpu-test");
    ASSERT_TRUE(task.ok()) << task.status();
    auto config = task->space->Get(0);
    ASSERT_TRUE(config.ok()) << config.status();
    db::Record r;
    r.workload = task->DbWorkload();
    r.target = task->target.str;
    r.device_key = task->device_key;
    r.config_index = config->index;
    r.config_json = config->ToJson();
    r.costs = {1e-5, 1.1e-5};
    r.timestamp = 1;
    ASSERT_TRUE(log_->Insert({r}).ok());
    // As a client writes it: spaces, not the canonical JSON.
    workload_ = db::Workload{"dense", "[16, 16, 16, \"float32\"]", 0};
  }

  static int counter_;
  std::string dir_;
  std::unique_ptr<db::TuningLog> log_;
  db::Workload workload_;
};
int LibraryExportTest::counter_ = 0;

LibraryExportOptions HostOptions() {
  LibraryExportOptions options;
  options.target = "llvm";
  return options;
}

TEST_F(LibraryExportTest, TunedWorkload_ReturnsLoadableLibraryAndHeader) {
  auto exported = ExportLibraryBytes(*log_, {workload_}, HostOptions());
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(exported->library_name, "libkernels.so");
  ASSERT_EQ(exported->kernels.size(), 1u);
  EXPECT_EQ(exported->kernels[0].symbol, "dense_16_16_16_float32");
  EXPECT_GT(exported->kernels[0].tuned_gflops, 0);
  EXPECT_TRUE(absl::StrContains(exported->header, "dense_16_16_16_float32")) << exported->header;

  const std::string path = absl::StrCat(dir_, "/libkernels.so");
  std::ofstream(path, std::ios::binary) << exported->library;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  EXPECT_NE(dlsym(lib, "dense_16_16_16_float32"), nullptr);
  dlclose(lib);
}

TEST_F(LibraryExportTest, AfterExport_NoTemporaryDirectoryLeft) {
  // A temporary directory of this test's own, so other processes' files do not count.
  const std::string tmp = absl::StrCat(dir_, "/tmp");
  std::filesystem::create_directories(tmp);
  const char* old_tmpdir = getenv("TMPDIR");
  const std::string saved = old_tmpdir == nullptr ? "" : old_tmpdir;
  setenv("TMPDIR", tmp.c_str(), 1);
  EXPECT_TRUE(ExportLibraryBytes(*log_, {workload_}, HostOptions()).ok());
  db::Workload untuned{"dense", "[8,8,8,\"float32\"]", 0};
  EXPECT_FALSE(ExportLibraryBytes(*log_, {untuned}, HostOptions()).ok());
  if (old_tmpdir == nullptr) {
    unsetenv("TMPDIR");
  } else {
    setenv("TMPDIR", saved.c_str(), 1);
  }
  EXPECT_TRUE(std::filesystem::is_empty(tmp));
}

TEST_F(LibraryExportTest, NoWorkloads_InvalidArgument) {
  EXPECT_EQ(ExportLibraryBytes(*log_, {}, HostOptions()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(LibraryExportTest, TooManyWorkloads_InvalidArgument) {
  std::vector<db::Workload> many(kMaxExportWorkloads + 1, workload_);
  EXPECT_EQ(ExportLibraryBytes(*log_, many, HostOptions()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(LibraryExportTest, ArgsNotJson_InvalidArgument) {
  db::Workload bad{"dense", "16,16,16", 0};
  EXPECT_EQ(ExportLibraryBytes(*log_, {bad}, HostOptions()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(LibraryExportTest, BadTarget_InvalidArgument) {
  LibraryExportOptions options = HostOptions();
  options.target = "fpga";
  EXPECT_EQ(ExportLibraryBytes(*log_, {workload_}, options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(LibraryExportTest, UntunedWorkload_NotFound) {
  db::Workload untuned{"dense", "[8,8,8,\"float32\"]", 0};
  auto exported = ExportLibraryBytes(*log_, {workload_, untuned}, HostOptions());
  EXPECT_EQ(exported.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(LibraryExportTest, OverSizeLimit_ResourceExhausted) {
  LibraryExportOptions options = HostOptions();
  options.max_bytes = 100;
  EXPECT_EQ(ExportLibraryBytes(*log_, {workload_}, options).status().code(),
            absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace tunefarm::tuner
