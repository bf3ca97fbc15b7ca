// LocalFarm's device option. Built twice: as local_farm_test with the machine's own driver
// (without a GPU, a cuda farm must fail with "no CUDA device" before anything starts), and as
// local_farm_fake_gpu_test on the fake driver of rpc_server/testdata/fake_libcuda.c, where a
// cuda farm's workers register with the GPU's description.
#include "farm/local_farm.h"

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "rpc_server/cuda_driver.h"
#include "tracker/tracker_server.h"

namespace tunefarm {
namespace {

#ifdef TUNEFARM_TEST_FAKE_DRIVER
const bool kUseFakeDriver = [] {
  setenv("TUNEFARM_LIBCUDA",
         absl::StrCat(std::getenv("TEST_SRCDIR"), "/tunefarm/rpc_server/testdata/libfakecuda.so")
             .c_str(),
         1);
  return true;
}();
#endif

TEST(LocalFarm, Start_BadDevice_InvalidArgument) {
  LocalFarmOptions options;
  options.device = "bogus";
  absl::StatusOr<std::unique_ptr<LocalFarm>> farm = LocalFarm::Start(options);
  EXPECT_EQ(farm.status().code(), absl::StatusCode::kInvalidArgument) << farm.status();
}

TEST(LocalFarm, Start_CpuDevice_WorkersRegisterWithCpuModel) {
  LocalFarmOptions options;
  options.device = "cpu";
  absl::StatusOr<std::unique_ptr<LocalFarm>> farm = LocalFarm::Start(options);
  ASSERT_TRUE(farm.ok()) << farm.status();
  v1::FarmSummary summary = (*farm)->tracker().core().Summary();
  ASSERT_EQ(summary.device_status_size(), 1);
  EXPECT_FALSE(summary.device_status(0).device().cpu_model().empty());
  EXPECT_TRUE(summary.device_status(0).device().gpu_name().empty());
}

TEST(LocalFarm, Start_CudaDevice_GpuWorkersOrNoCudaDevice) {
  LocalFarmOptions options;
  options.device = "cuda:0";
  options.key = "gpu-local";
  options.target = "cuda -arch=sm_90";
  absl::StatusOr<std::unique_ptr<LocalFarm>> farm = LocalFarm::Start(options);
  if (!farm.ok()) {
    EXPECT_EQ(farm.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(farm.status().message().find("no CUDA device"), std::string::npos) << farm.status();
    return;
  }
  v1::FarmSummary summary = (*farm)->tracker().core().Summary();
  ASSERT_EQ(summary.device_status_size(), 1);
  const v1::DeviceDescription& d = summary.device_status(0).device();
  EXPECT_EQ(d.key(), "gpu-local");
  EXPECT_FALSE(d.gpu_name().empty());
  EXPECT_EQ(d.gpu_arch().rfind("sm_", 0), 0u) << d.gpu_arch();
#ifdef TUNEFARM_TEST_FAKE_DRIVER
  EXPECT_EQ(d.gpu_name(), "Fake CUDA Device");
#endif
}

TEST(LocalFarm, Start_AllGpus_OneWorkerPerGpuOrNoCudaDevice) {
  LocalFarmOptions options;
  options.device = "cuda:all";
  options.key = "gpu-all";
  options.num_workers = 1;
  absl::StatusOr<std::unique_ptr<LocalFarm>> farm = LocalFarm::Start(options);
  if (!farm.ok()) {
    EXPECT_EQ(farm.status().code(), absl::StatusCode::kUnavailable) << farm.status();
    EXPECT_NE(farm.status().message().find("no CUDA device"), std::string::npos) << farm.status();
    return;
  }
  absl::StatusOr<CudaDriver*> driver = CudaDriver::Load();
  ASSERT_TRUE(driver.ok());
  EXPECT_EQ((*farm)->tracker().core().Summary().device_status_size(), (*driver)->DeviceCount());
}

TEST(LocalFarm, Start_GpuListedTwice_InvalidArgument) {
  LocalFarmOptions options;
  options.device = "cuda:0,0";
  EXPECT_EQ(LocalFarm::Start(options).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tunefarm
