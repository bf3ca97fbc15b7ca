#include "db/config_rank.h"

#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<int64_t> Order(std::vector<ConfigScore> configs) {
  SortByRank(configs);
  std::vector<int64_t> order;
  for (const ConfigScore& c : configs) order.push_back(c.index);
  return order;
}

TEST(MedianFiniteCost, FailedRunsLeftOut) {
  EXPECT_DOUBLE_EQ(MedianFiniteCost({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(MedianFiniteCost({4.0, kInf, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(MedianFiniteCost({4.0, 1.0}), 2.5);
  EXPECT_EQ(MedianFiniteCost({kInf}), kInf);
  EXPECT_EQ(MedianFiniteCost({}), kInf);
}

TEST(RecordCost, MedianOfRepeats_InfWhenFailed) {
  Record r;
  r.costs = {3e-3, 1e-3, 2e-3};
  EXPECT_DOUBLE_EQ(RecordCost(r), 2e-3);
  r.costs.clear();
  r.error = ErrorClass::kRuntimeError;
  EXPECT_EQ(RecordCost(r), kInf);
}

TEST(ScoreConfig, FirstSuccessLeftOutOnceALaterRunSucceeded) {
  ConfigScore s = ScoreConfig(4, {0.8, 1.05, 1.04, 1.06});
  EXPECT_TRUE(s.confirmed);
  EXPECT_DOUBLE_EQ(s.first_s, 0.8);
  EXPECT_DOUBLE_EQ(s.cost_s, 1.05);
  EXPECT_EQ(s.runs, 3);
  // Failures before the first success do not count; failures after it are left out.
  s = ScoreConfig(4, {kInf, 0.8, kInf, 1.2});
  EXPECT_TRUE(s.confirmed);
  EXPECT_DOUBLE_EQ(s.first_s, 0.8);
  EXPECT_DOUBLE_EQ(s.cost_s, 1.2);
  EXPECT_EQ(s.runs, 1);
}

TEST(ScoreConfig, MeasuredOnceOrFailedAgain_ItsFirstCost) {
  ConfigScore once = ScoreConfig(1, {0.9});
  EXPECT_FALSE(once.confirmed);
  EXPECT_FALSE(once.failed_again);
  EXPECT_DOUBLE_EQ(once.cost_s, 0.9);
  EXPECT_EQ(once.runs, 1);
  ConfigScore failed = ScoreConfig(1, {0.9, kInf, kInf});
  EXPECT_FALSE(failed.confirmed);
  EXPECT_TRUE(failed.failed_again);
  EXPECT_DOUBLE_EQ(failed.cost_s, 0.9);
  EXPECT_EQ(ScoreConfig(1, {}).cost_s, kInf);
  EXPECT_EQ(ScoreConfig(1, {kInf, kInf}).cost_s, kInf);
  EXPECT_EQ(ScoreConfig(1, {kInf}).runs, 0);
}

TEST(SortByRank, OneJob_TheReMeasuredWinnerFirst_LuckyRunsDoNotCount) {
  // A job's top 3 (first runs 0.80-0.85) were measured again; 10 and 11 were measured once,
  // slower than every top config's first run but faster than their re-measurements.
  std::vector<int64_t> order = Order({
      ScoreConfig(3, {0.80, 1.06, 1.05, 1.07}),  // the luckiest first run
      ScoreConfig(9, {0.85, 1.00, 1.01, 1.00}),  // the fastest when measured again
      ScoreConfig(5, {0.82, 1.02, 1.02, 1.02}), ScoreConfig(10, {0.86}), ScoreConfig(11, {0.95}),
      ScoreConfig(12, {kInf}),  // never ran
  });
  EXPECT_EQ(order, (std::vector<int64_t>{9, 5, 3, 10, 11, 12}));
}

TEST(SortByRank, AFasterConfigMeasuredOnce_RanksByItsRun) {
  // 6 (measured once, by a later job) beat 2's first run: its one run is not held back.
  std::vector<ConfigScore> configs = {ScoreConfig(2, {0.002, 0.0025}), ScoreConfig(6, {0.001}),
                                      ScoreConfig(3, {0.003})};
  SortByRank(configs);
  EXPECT_EQ(configs[0].index, 6);
  EXPECT_DOUBLE_EQ(configs[0].rank_s, 0.001);
  EXPECT_EQ(configs[1].index, 2);
  EXPECT_EQ(configs[2].index, 3);
}

TEST(SortByRank, FailedAgain_RanksAtTwiceItsCost_TiesToConfirmedThenSmallerIndex) {
  EXPECT_EQ(Order({ScoreConfig(1, {1.0, kInf}), ScoreConfig(7, {1.5, 1.9})}),
            (std::vector<int64_t>{7, 1}));
  EXPECT_EQ(Order({ScoreConfig(1, {1.0, kInf}), ScoreConfig(7, {2.5, 2.5})}),
            (std::vector<int64_t>{1, 7}));
  // Exact ties: the confirmed config, then the smaller index.
  EXPECT_EQ(Order({ScoreConfig(8, {1.0}), ScoreConfig(9, {2.0, 1.0})}),
            (std::vector<int64_t>{9, 8}));
  EXPECT_EQ(Order({ScoreConfig(9, {0.9, 1.0}), ScoreConfig(4, {1.1, 1.0})}),
            (std::vector<int64_t>{4, 9}));
}

}  // namespace
}  // namespace tunefarm::db
