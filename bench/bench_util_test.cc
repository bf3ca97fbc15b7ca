#include "bench/bench_util.h"

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tunefarm::bench {
namespace {

// Nothing here depends on the machine's speed: only what is kept per round and how the rounds
// are split, on readings made up by the test.
TEST(BenchUtilTest, TimeInTurn_KeepsEveryRoundsRatioAndProbeReading) {
  int calls = 0;
  double reading = 0;
  const InTurn t =
      TimeInTurn({[&] { ++calls; }, [&] { ++calls; }}, 2, 5, 0, [&] { return reading += 1; });
  EXPECT_EQ(t.rounds, 5);
  ASSERT_EQ(t.probe.size(), 5u);
  EXPECT_EQ(t.probe.front(), 1);
  EXPECT_EQ(t.probe.back(), 5);
  ASSERT_EQ(t.round_over_first.size(), 2u);
  EXPECT_EQ(t.round_over_first[1].size(), 5u);
  EXPECT_EQ(calls, 2 * 5 * 3);  // per round each kernel: one warm-up call and two timed
  const InTurn without = TimeInTurn({[] {}}, 1, 3);
  EXPECT_TRUE(without.probe.empty());
}

TEST(BenchUtilTest, SplitByState_RatiosOfTheFastAndSlowRoundsApart) {
  InTurn t;
  t.probe = {150, 148, 80, 82, 120, 151};
  t.round_over_first = {std::vector<double>(6, 1.0), {1.00, 1.02, 0.85, 0.87, 0.95, 0.98}};
  const ByState s = SplitByState(t, 1);
  // Fast: at least 85% of 151 (128.35): rounds 0, 1 and 5. Slow: under 70% (105.7): 2 and 3.
  // Round 4 (120) is in neither.
  EXPECT_EQ(s.fast_rounds, 3);
  EXPECT_DOUBLE_EQ(s.fast_ratio, 1.00);
  EXPECT_EQ(s.slow_rounds, 2);
  EXPECT_DOUBLE_EQ(s.slow_ratio, 0.86);
  EXPECT_EQ(SplitByState(InTurn{}, 1).fast_rounds, 0);  // no probe: nothing to split
  EXPECT_EQ(SplitByState(t, 7).slow_rounds, 0);         // no such kernel
}

// The order statistics of the median's interval: 25 values at 95% are the 8th and 18th, 100
// the 40th and 61st; too few values for 95% give their range.
TEST(BenchUtilTest, MedianInterval_OrderStatisticsOfTheBinomialLaw) {
  std::vector<double> v;
  for (int i = 25; i >= 1; --i) v.push_back(i);
  std::shuffle(v.begin(), v.end(), std::mt19937(7));
  Interval i25 = MedianInterval(v);
  EXPECT_EQ(i25.lo, 8);
  EXPECT_EQ(i25.hi, 18);
  std::vector<double> w;
  for (int i = 1; i <= 100; ++i) w.push_back(i);
  Interval i100 = MedianInterval(w);
  EXPECT_EQ(i100.lo, 40);
  EXPECT_EQ(i100.hi, 61);
  Interval i5 = MedianInterval({1.02, 0.97, 1.01, 0.99, 1.00});
  EXPECT_EQ(i5.lo, 0.97);
  EXPECT_EQ(i5.hi, 1.02);
  Interval none = MedianInterval({});
  EXPECT_EQ(none.lo, 0);
  EXPECT_EQ(none.hi, 0);
  // 4,000 values (TimeInTurn's most rounds) stay finite and bracket the median.
  std::vector<double> many(4000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<double>(i);
  Interval i4000 = MedianInterval(many);
  EXPECT_LT(i4000.lo, 1999.5);
  EXPECT_GT(i4000.hi, 1999.5);
  EXPECT_GT(i4000.lo, 1900);
  EXPECT_LT(i4000.hi, 2100);
}

// Over many samples of 25 from a law whose median is 0, the interval holds it about 95.7% of the
// time (1 - 2 P(Binomial(25, 1/2) <= 7)); a fixed seed keeps the count the same on every run.
TEST(BenchUtilTest, MedianInterval_CoversTheMedianAtItsLevel) {
  std::mt19937 rng(11);
  std::normal_distribution<double> noise(0, 0.01);
  int covered = 0;
  const int samples = 2000;
  for (int s = 0; s < samples; ++s) {
    std::vector<double> v(25);
    for (double& x : v) x = noise(rng);
    const Interval i = MedianInterval(v);
    covered += i.lo <= 0 && 0 <= i.hi;
  }
  EXPECT_GE(covered, samples * 94 / 100);
  EXPECT_LE(covered, samples * 98 / 100);
}

}  // namespace
}  // namespace tunefarm::bench
