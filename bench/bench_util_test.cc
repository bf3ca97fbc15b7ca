#include "bench/bench_util.h"

#include <functional>
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

}  // namespace
}  // namespace tunefarm::bench
