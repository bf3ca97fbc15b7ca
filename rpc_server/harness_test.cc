#include <dlpack/dlpack.h>

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "rpc_server/cache_flush.h"
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
      [] {}, options);
  EXPECT_EQ(out.costs.size(), 2u);
  EXPECT_GT(out.distribution.number(), 1);
}

TEST(Timing, TimeKernel_KernelFails_ReportsCode) {
  TimingOutcome out = TimeKernel([] { return 2; }, [] {}, v1::TimingOptions());
  EXPECT_EQ(out.kernel_rc, 2);
}

// The loop behind TimeKernel with a device clock: a fake repeat timer that reports 1 ms per
// run shows `number` growing to min_repeat_ms, and no flush without flush_cache.
TEST(Timing, TimeRepeats_DeviceTimer_GrowsNumber) {
  v1::TimingOptions options;
  options.set_repeat(4);
  options.set_min_repeat_ms(10);
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
  EXPECT_EQ(flushes, 0);
  EXPECT_GT(repeats, 4);
}

// Cold runs (flush_cache): one run per repeat, each right after a flush, whatever number and
// min_repeat_ms ask, since a second run would find the caches warm.
TEST(Timing, TimeRepeats_FlushCache_OneColdRunPerRepeat) {
  v1::TimingOptions options;
  options.set_repeat(4);
  options.set_number(8);
  options.set_min_repeat_ms(10);
  options.set_flush_cache(true);
  std::vector<int64_t> numbers;
  int flushes = 0;
  bool flushed_since_run = false;
  TimingOutcome out = TimeRepeats(
      [&](int64_t number, int32_t*) {
        numbers.push_back(number);
        EXPECT_TRUE(flushed_since_run) << "run " << numbers.size() << " without a flush";
        flushed_since_run = false;
        return 0.001;
      },
      [&] {
        ++flushes;
        flushed_since_run = true;
      },
      options);
  ASSERT_EQ(out.costs.size(), 4u);
  EXPECT_EQ(out.distribution.number(), 1);
  EXPECT_EQ(flushes, 4);
  EXPECT_EQ(numbers, std::vector<int64_t>(4, 1));
}

// FlushArguments evicts the lines of every argument from `first` on: a later read of a flushed
// buffer misses, which a timed read shows only noisily, so this checks the walk itself on odd
// shapes and offsets (no crash, no write: the data is unchanged) and the skipped first argument.
TEST(CacheFlush, FlushArguments_WalksEveryArgumentFromFirst) {
  std::vector<float> a(1000, 1.5f), b(3 * 7 * 11, 2.5f);
  int64_t shape_a[] = {1000}, shape_b[] = {3, 7, 11};
  DLTensor ta{}, tb{}, tnull{};
  ta.data = a.data();
  ta.ndim = 1;
  ta.shape = shape_a;
  ta.dtype = {kDLFloat, 32, 1};
  tb = ta;
  tb.data = b.data();
  tb.ndim = 3;
  tb.shape = shape_b;
  tb.byte_offset = 4;  // an unaligned start
  DLTensor* args[] = {&ta, &tnull, &tb};
  FlushArguments(args, 3, 1);
  FlushArguments(args, 3, 0);
  FlushArguments(args, 0, 0);
  FlushRange(nullptr, 64);
  FlushRange(a.data() + 3, 1);
  EXPECT_EQ(a, std::vector<float>(1000, 1.5f));
  EXPECT_EQ(b, std::vector<float>(3 * 7 * 11, 2.5f));
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
