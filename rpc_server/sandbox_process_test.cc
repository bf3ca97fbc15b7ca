// The sandbox child: good kernels are timed; wrong, crashing, looping and memory-hungry ones
// each yield their error class, and the next request still succeeds in a fresh child.
#include "rpc_server/sandbox_process.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

std::string KernelPath(const std::string& name) {
  return std::string(std::getenv("TEST_SRCDIR")) + "/tunefarm/rpc_server/testdata/lib" + name +
         ".so";
}

v1::SandboxMeasure VaddRequest(const std::string& kernel, int n = 1024) {
  v1::SandboxMeasure m;
  v1::MeasureRequest* r = m.mutable_request();
  r->set_request_id("r");
  r->set_kernel_name("kernel");
  r->set_seed(7);
  for (int i = 0; i < 3; ++i) {
    v1::TensorArg* t = r->add_tensors();
    t->mutable_spec()->add_shape(n);
    t->mutable_spec()->set_dtype(v1::DTYPE_FLOAT32);
    t->set_is_output(i == 2);
  }
  r->mutable_timing()->set_repeat(3);
  r->set_timeout_ms(2000);
  r->mutable_reference_artifact()->set_hash("ref-vadd");
  m.set_reference_path(KernelPath("vadd"));
  m.set_artifact_path(KernelPath(kernel));
  return m;
}

class SandboxProcessTest : public ::testing::Test {
 protected:
  SandboxProcessTest() : sandbox_(Options()) {}
  static SandboxOptions Options() {
    absl::StatusOr<std::string> binary = FindSandboxBinary();
    EXPECT_TRUE(binary.ok()) << binary.status();
    return SandboxOptions{binary.value_or(""), /*memory_limit_mb=*/1024};
  }
  SandboxProcess sandbox_;
};

TEST_F(SandboxProcessTest, Measure_CorrectKernel_ReportsRepeatCosts) {
  v1::MeasureResult r = sandbox_.Measure(VaddRequest("vadd_reversed"), absl::Seconds(5));
  ASSERT_EQ(r.error(), v1::ERROR_NONE) << r.message();
  EXPECT_EQ(r.costs_s_size(), 3);
  EXPECT_GT(r.distribution().median(), 0);
}

TEST_F(SandboxProcessTest, Measure_WrongAndSkippedWrites_WrongAnswer) {
  EXPECT_EQ(sandbox_.Measure(VaddRequest("wrong"), absl::Seconds(5)).error(), v1::WRONG_ANSWER);
  v1::MeasureResult r = sandbox_.Measure(VaddRequest("skip_writes"), absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::WRONG_ANSWER);
  EXPECT_NE(r.message().find("1023"), std::string::npos) << r.message();
  EXPECT_EQ(sandbox_.spawn_count(), 1);
}

TEST_F(SandboxProcessTest, Measure_FailingKernels_ErrorClassesAndRecovery) {
  EXPECT_EQ(sandbox_.Measure(VaddRequest("segfault"), absl::Seconds(5)).error(), v1::RUNTIME_ERROR);
  EXPECT_EQ(sandbox_.Measure(VaddRequest("bad_rc"), absl::Seconds(5)).error(), v1::RUNTIME_ERROR);
  v1::SandboxMeasure loop = VaddRequest("loop");
  loop.mutable_request()->set_timeout_ms(500);
  EXPECT_EQ(sandbox_.Measure(loop, absl::Milliseconds(800)).error(), v1::TIMEOUT);
  v1::MeasureResult oom = sandbox_.Measure(VaddRequest("oom"), absl::Seconds(10));
  EXPECT_EQ(oom.error(), v1::OUT_OF_MEMORY) << oom.message();
  v1::MeasureResult load = sandbox_.Measure(VaddRequest("missing"), absl::Seconds(5));
  EXPECT_EQ(load.error(), v1::LOAD_ERROR);
  // The sandbox recovers: a fresh child measures the next kernel.
  EXPECT_EQ(sandbox_.Measure(VaddRequest("vadd"), absl::Seconds(5)).error(), v1::ERROR_NONE);
  EXPECT_GE(sandbox_.spawn_count(), 4);
}

TEST_F(SandboxProcessTest, Measure_AdaptiveMode_ReportsConfidenceInterval) {
  v1::SandboxMeasure m = VaddRequest("vadd", 4096);
  m.mutable_request()->mutable_timing()->set_adaptive(true);
  m.mutable_request()->mutable_timing()->set_repeat(0);  // adaptive default minimum: 5
  m.mutable_request()->mutable_timing()->set_min_repeat_ms(1);
  m.mutable_request()->mutable_timing()->set_target_rel_ci(0.05);
  m.mutable_request()->mutable_timing()->set_max_time_ms(500);
  v1::MeasureResult r = sandbox_.Measure(m, absl::Seconds(5));
  ASSERT_EQ(r.error(), v1::ERROR_NONE) << r.message();
  EXPECT_GE(r.costs_s_size(), 5);
  EXPECT_LE(r.distribution().ci_low(), r.distribution().median());
  EXPECT_GE(r.distribution().ci_high(), r.distribution().median());
  EXPECT_GE(r.distribution().number(), 1);
}

TEST_F(SandboxProcessTest, Calibrate_Runs_ReturnsCosts) {
  absl::StatusOr<std::vector<double>> costs = sandbox_.Calibrate(10, absl::Seconds(5));
  ASSERT_TRUE(costs.ok()) << costs.status();
  EXPECT_EQ(costs->size(), 10u);
}

// A CUDA sandbox child on a machine without a usable GPU answers a request with the driver's
// reason, then exits so that the next request gets a fresh child (a context may be available
// by then); on a machine with a GPU, the calibration kernel runs on it.
TEST(CudaSandbox, NoGpu_RequestsAnswerNoCudaDevice) {
  absl::StatusOr<std::string> binary = FindSandboxBinary();
  ASSERT_TRUE(binary.ok()) << binary.status();
  SandboxProcess sandbox(SandboxOptions{*binary, 1024, "cuda:0"});
  absl::StatusOr<std::vector<double>> costs = sandbox.Calibrate(5, absl::Seconds(20));
  if (costs.ok()) {
    EXPECT_EQ(costs->size(), 5u);
    return;
  }
  EXPECT_EQ(costs.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(costs.status().message().find("no CUDA device"), std::string::npos) << costs.status();
  v1::MeasureResult r = sandbox.Measure(VaddRequest("vadd"), absl::Seconds(20));
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_NE(r.message().find("no CUDA device"), std::string::npos) << r.message();
  EXPECT_EQ(sandbox.spawn_count(), 2);  // each request answered by a fresh child
}

TEST(CudaSandbox, BadDeviceArgument_ChildExitsWithUsageError) {
  absl::StatusOr<std::string> binary = FindSandboxBinary();
  ASSERT_TRUE(binary.ok()) << binary.status();
  SandboxProcess sandbox(SandboxOptions{*binary, 1024, "bogus"});
  v1::MeasureResult r = sandbox.Measure(VaddRequest("vadd"), absl::Seconds(5));
  EXPECT_EQ(r.error(), v1::RUNTIME_ERROR);
  EXPECT_NE(r.message().find("status 2"), std::string::npos) << r.message();
}

}  // namespace
}  // namespace tunefarm
