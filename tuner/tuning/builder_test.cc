// The builder's artifacts: CPU targets get shared libraries; cuda targets get a serialized
// GpuModule per config (PTX + launch) and a host shared library as the reference.
#include "tuner/tuning/builder.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "proto/gpu_module.pb.h"

namespace tunefarm::tuner {
namespace {

bool IsElf(const std::string& bytes) {
  return bytes.rfind(
             "\x7f"
             "ELF",
             0) == 0;
}

TEST(Builder, CudaTask_GpuModulePerConfigAndHostReference) {
  auto task = MakeTask("dense", {64, 32, 48}, "float16", "cuda -arch=sm_90", "gpu-test");
  ASSERT_TRUE(task.ok()) << task.status();
  BuildResult ref = BuildConfig(*task, std::nullopt);
  ASSERT_TRUE(ref.status.ok()) << ref.status;
  EXPECT_TRUE(IsElf(ref.artifact));
  int built = 0;
  for (int64_t index = 0; index < task->space->size() && built < 3; index += 97) {
    BuildResult r = BuildConfig(*task, index);
    if (r.status.code() == absl::StatusCode::kFailedPrecondition) continue;  // over a limit
    ASSERT_TRUE(r.status.ok()) << r.status;
    v1::GpuModule m;
    ASSERT_TRUE(m.ParseFromString(r.artifact));
    EXPECT_EQ(m.entry(), kKernelName);
    EXPECT_EQ(m.arch(), "sm_90");
    EXPECT_TRUE(absl::StrContains(m.ptx(), std::string(".entry ") + kKernelName));
    EXPECT_GT(m.block().x() * m.block().y() * m.block().z(), 0);
    EXPECT_EQ(int64_t{m.grid().x()} * m.grid().y() * m.grid().z() *
                      (m.block().x() * m.block().y() * m.block().z()) >
                  0,
              true);
    ASSERT_EQ(r.tensors.size(), 3u);
    EXPECT_EQ(r.tensors[0].spec().dtype(), v1::DTYPE_FLOAT16);
    EXPECT_EQ(r.tensors[2].spec().dtype(), v1::DTYPE_FLOAT32);
    EXPECT_TRUE(r.tensors[2].is_output());
    ++built;
  }
  EXPECT_EQ(built, 3);
}

TEST(Builder, CpuTask_SharedLibrary) {
  auto task = MakeTask("dense", {16, 16, 16}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok());
  BuildResult r = BuildConfig(*task, 0);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_TRUE(IsElf(r.artifact));
  EXPECT_FALSE(r.artifact_hash.empty());
}

// A kernel over the size bound is refused before LLVM sees it: a result with its error and
// its tensors, not a build.
TEST(Builder, KernelOverSizeBound_ResourceExhaustedNotCompiled) {
  auto task = MakeTask("dense", {16, 16, 16}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok());
  BuildResult r = BuildConfig(*task, 0, /*max_kernel_nodes=*/20);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kResourceExhausted) << r.status;
  EXPECT_TRUE(absl::StrContains(r.status.message(), "IR nodes")) << r.status;
  EXPECT_TRUE(r.artifact.empty());
  EXPECT_EQ(r.tensors.size(), 3u);
  EXPECT_TRUE(BuildConfig(*task, 0).status.ok());
}

}  // namespace
}  // namespace tunefarm::tuner
