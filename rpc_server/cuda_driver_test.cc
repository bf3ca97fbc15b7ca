// Runs on every machine: without a GPU (or without libcuda.so.1) Load must fail cleanly with
// Unavailable "no CUDA device: ..."; with one, the device queries must answer.
#include "rpc_server/cuda_driver.h"

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

TEST(CudaDriver, Load_NoGpuOrGpu_UnavailableOrDeviceInfo) {
  absl::StatusOr<CudaDriver*> driver = CudaDriver::Load();
  if (!driver.ok()) {
    EXPECT_EQ(driver.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(driver.status().message().find("no CUDA device"), std::string::npos)
        << driver.status();
    // The same answer again: the first result is kept.
    EXPECT_EQ(CudaDriver::Load().status(), driver.status());
    return;
  }
  ASSERT_GE((*driver)->DeviceCount(), 1);
  absl::StatusOr<CudaDeviceInfo> info = (*driver)->DeviceInfo(0);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_FALSE(info->name.empty());
  EXPECT_GE(info->cc_major, 3);
  EXPECT_GT(info->multiprocessors, 0);
  EXPECT_GT(info->memory_bytes, 0);
  EXPECT_GE(info->max_threads_per_block, 512);
  EXPECT_EQ(info->Arch().rfind("sm_", 0), 0u);
  EXPECT_GT((*driver)->DriverVersion(), 0);
  EXPECT_EQ((*driver)->ErrorName(CUDA_ERROR_OUT_OF_MEMORY), "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ((*driver)->Check(CUDA_ERROR_OUT_OF_MEMORY, "alloc").code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE((*driver)->Check(CUDA_SUCCESS, "ok").ok());
}

TEST(CudaDriver, DeviceInfo_OrdinalOutOfRange_OutOfRange) {
  absl::StatusOr<CudaDriver*> driver = CudaDriver::Load();
  if (!driver.ok()) GTEST_SKIP() << driver.status().message();
  absl::StatusOr<CudaDeviceInfo> info = (*driver)->DeviceInfo((*driver)->DeviceCount());
  EXPECT_EQ(info.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(info.status().message().find("no CUDA device"), std::string::npos);
}

TEST(CudaDeviceInfo, Arch_ComputeCapability_SmName) {
  CudaDeviceInfo info;
  info.cc_major = 9;
  info.cc_minor = 0;
  EXPECT_EQ(info.Arch(), "sm_90");
  info.cc_major = 8;
  info.cc_minor = 6;
  EXPECT_EQ(info.Arch(), "sm_86");
}

}  // namespace
}  // namespace tunefarm
