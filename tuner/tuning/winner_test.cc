#include "tuner/tuning/winner.h"

#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A config's costs in order: its first measurement, then its re-measurements.
std::pair<const int64_t, std::vector<double>> Config(int64_t index, double first,
                                                     std::vector<double> again) {
  std::vector<double> costs = {first};
  costs.insert(costs.end(), again.begin(), again.end());
  return {index, costs};
}

TEST(PickWinner, FastestReMeasurementsWin_ScoredByTheirMedian) {
  Winner w = PickWinner({Config(5, 2.0, {2.0, 2.0, 2.0}), Config(9, 1.0, {1.2, 1.1, 5.0}),
                         Config(3, 1.5, {1.5, 1.5, 1.5})});
  EXPECT_EQ(w.index, 9);  // One disturbed round (5.0) does not decide.
  EXPECT_DOUBLE_EQ(w.cost_s, 1.2);
}

TEST(PickWinner, LuckyFirstRunDoesNotWin) {
  // 4 read fastest the first time, but its re-measurements are slower than 9's.
  Winner w = PickWinner({Config(4, 0.8, {1.05, 1.04, 1.06}), Config(9, 1.0, {1.0, 1.01, 1.0})});
  EXPECT_EQ(w.index, 9);
  EXPECT_DOUBLE_EQ(w.cost_s, 1.0);
}

TEST(PickWinner, CloseCall_FasterWinsOverSmallerIndex) {
  // 1.5% apart: the faster config wins even with the larger index (no noise margin).
  Winner w = PickWinner({Config(9, 1.0, {1.0, 1.0, 1.0}), Config(4, 1.0, {1.015, 1.015, 1.015})});
  EXPECT_EQ(w.index, 9);
}

TEST(PickWinner, ExactTie_SmallerIndexWins) {
  Winner w = PickWinner({Config(9, 1.0, {1.0}), Config(4, 1.1, {1.0})});
  EXPECT_EQ(w.index, 4);
}

TEST(PickWinner, ReMeasurementsFailed_RankedAtHalfItsFirstSpeed) {
  Winner w = PickWinner({Config(1, 1.0, {kInf, kInf}), Config(7, 1.5, {1.5, kInf})});
  EXPECT_EQ(w.index, 7);
  EXPECT_DOUBLE_EQ(w.cost_s, 1.5);
  // At twice its first cost, a config that failed again still wins over a far slower one, and
  // its cost is its first run's.
  w = PickWinner({Config(1, 1.0, {kInf}), Config(7, 2.5, {2.5})});
  EXPECT_EQ(w.index, 1);
  EXPECT_DOUBLE_EQ(w.cost_s, 1.0);
}

TEST(PickWinner, NothingFinite_NoWinner) {
  EXPECT_EQ(PickWinner({}).index, -1);
  EXPECT_EQ(PickWinner({Config(1, kInf, {kInf})}).index, -1);
}

// Configs outside the top were measured once, slower than every top config's first run: they
// do not win, even when their one run is faster than the top's re-measurements.
TEST(PickWinner, MeasuredOnceSlowerThanTheTop_DoesNotWin) {
  Winner w = PickWinner(
      {Config(4, 0.8, {1.05, 1.04, 1.06}), Config(9, 0.85, {1.0, 1.01, 1.0}), Config(12, 0.9, {})});
  EXPECT_EQ(w.index, 9);
  EXPECT_DOUBLE_EQ(w.cost_s, 1.0);
  // And when every top config failed again, the top still wins over them.
  w = PickWinner({Config(4, 0.8, {kInf}), Config(9, 0.85, {kInf}), Config(12, 0.9, {})});
  EXPECT_EQ(w.index, 4);
  EXPECT_DOUBLE_EQ(w.cost_s, 0.8);
}

// A resumed session's history: 3 was confirmed by an earlier job, 8 by this one.
TEST(PickWinner, ResumedHistory_EarlierReMeasurementsCount) {
  Winner w = PickWinner({Config(3, 0.9, {0.95, 0.97, 0.96}), Config(8, 0.92, {0.99, 0.98, 1.0})});
  EXPECT_EQ(w.index, 3);
  EXPECT_DOUBLE_EQ(w.cost_s, 0.96);
}

}  // namespace
}  // namespace tunefarm::tuner
