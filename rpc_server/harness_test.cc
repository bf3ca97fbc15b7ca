#include <cmath>

#include "gtest/gtest.h"
#include "rpc_server/cost_stats.h"
#include "rpc_server/tensors.h"
#include "rpc_server/timing.h"

namespace tunefarm {
namespace {

TEST(CostStats, Summarize_KnownSamples_MedianAndCi) {
  v1::CostDistribution d = Summarize({5, 1, 3, 2, 4});
  EXPECT_DOUBLE_EQ(d.median(), 3);
  EXPECT_DOUBLE_EQ(d.min(), 1);
  EXPECT_DOUBLE_EQ(d.max(), 5);
  EXPECT_LE(d.ci_low(), 3);
  EXPECT_GE(d.ci_high(), 3);
}

TEST(CostStats, RobustCv_OneOutlier_StaysSmall) {
  EXPECT_LT(RobustCv({1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 50.0}), 0.05);
  EXPECT_EQ(RobustCv({1.0}), 0);
}

TEST(Tensors, HalfRoundTrip_SmallValues_Exact) {
  for (float f : {0.0f, 1.0f, -0.5f, 0.25f, 65504.0f}) EXPECT_EQ(HalfToFloat(FloatToHalf(f)), f);
}

TEST(Tensors, Compare_PoisonedOutput_ReportsMismatch) {
  google::protobuf::RepeatedPtrField<v1::TensorArg> args;
  for (int i = 0; i < 2; ++i) {
    v1::TensorArg* t = args.Add();
    t->mutable_spec()->add_shape(4);
    t->mutable_spec()->set_dtype(i == 0 ? v1::DTYPE_INT8 : v1::DTYPE_FLOAT16);
    t->set_is_output(i == 1);
  }
  auto tensors = HostTensors::Allocate(args, 1 << 20);
  ASSERT_TRUE(tensors.ok());
  (*tensors)->FillInputs(1);
  (*tensors)->PoisonOutputs();
  std::vector<std::string> want = (*tensors)->CopyOutputs();
  EXPECT_EQ((*tensors)->CompareOutputs(want), "");  // NaN == NaN is treated as equal
  std::string zeros(8, '\0');
  EXPECT_NE((*tensors)->CompareOutputs({zeros}), "");
}

TEST(Tensors, Allocate_UnsupportedDtype_InvalidArgument) {
  google::protobuf::RepeatedPtrField<v1::TensorArg> args;
  args.Add()->mutable_spec()->add_shape(4);
  EXPECT_EQ(HostTensors::Allocate(args, 1 << 20).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(Timing, TimeKernel_MinRepeatMs_GrowsNumber) {
  v1::TimingOptions options;
  options.set_repeat(2);
  options.set_min_repeat_ms(2);
  volatile int sink = 0;
  TimingOutcome out = TimeKernel(
      [&] {
        for (int i = 0; i < 100; ++i) sink = sink + i;
        return 0;
      },
      options);
  EXPECT_EQ(out.costs.size(), 2u);
  EXPECT_GT(out.distribution.number(), 1);
}

TEST(Timing, TimeKernel_KernelFails_ReportsCode) {
  TimingOutcome out = TimeKernel([] { return 2; }, v1::TimingOptions());
  EXPECT_EQ(out.kernel_rc, 2);
}

// The loop behind TimeKernel with a device clock: a fake repeat timer that reports 1 ms per
// run shows `number` growing to min_repeat_ms and a flush before every counted repeat.
TEST(Timing, TimeRepeats_DeviceTimer_GrowsNumberAndFlushes) {
  v1::TimingOptions options;
  options.set_repeat(4);
  options.set_min_repeat_ms(10);
  options.set_flush_cache(true);
  int repeats = 0;
  int flushes = 0;
  TimingOutcome out = TimeRepeats(
      [&](int64_t number, int32_t*) {
        ++repeats;
        return 0.001 * (number > 0 ? 1 : 0);
      },
      [&] { ++flushes; }, options);
  ASSERT_EQ(out.costs.size(), 4u);
  EXPECT_DOUBLE_EQ(out.distribution.median(), 0.001);
  EXPECT_GE(out.distribution.number(), 10);  // 10 runs of 1 ms reach min_repeat_ms
  EXPECT_EQ(flushes, 4);                     // counted repeats only, not the growth probes
  EXPECT_GT(repeats, 4);
}

TEST(Timing, TimeRepeats_DeviceError_ReportsCode) {
  TimingOutcome out = TimeRepeats(
      [](int64_t, int32_t* rc) {
        *rc = 700;  // e.g. CUDA_ERROR_ILLEGAL_ADDRESS
        return -1.0;
      },
      [] {}, v1::TimingOptions());
  EXPECT_EQ(out.kernel_rc, 700);
  EXPECT_TRUE(out.costs.empty());
}

}  // namespace
}  // namespace tunefarm
