#include "tuner/tuning/winner.h"

#include <limits>

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

RemeasuredConfig Config(int64_t index, double first, double second) {
  RemeasuredConfig rc;
  rc.index = index;
  rc.first_cost_s = first;
  rc.second_cost_s = second;
  return rc;
}

TEST(PickWinner, ClearlyFastest_Wins_ScoredByTheMeanOfItsRuns) {
  Winner w = PickWinner({Config(5, 2.0, 2.0), Config(9, 1.0, 1.2), Config(3, 1.5, 1.5)});
  EXPECT_EQ(w.index, 9);
  EXPECT_DOUBLE_EQ(w.cost_s, 1.1);
}

TEST(PickWinner, WithinTwoPercent_SmallestIndexWins) {
  Winner w = PickWinner({Config(9, 1.0, 1.0), Config(4, 1.015, 1.015)});
  EXPECT_EQ(w.index, 4);
  EXPECT_DOUBLE_EQ(w.cost_s, 1.015);
}

TEST(PickWinner, BestsOwnRunsDisagree_MarginWidens) {
  // The best config's runs differ by 20% of its score, so a config 10% slower ties with it.
  Winner w = PickWinner({Config(9, 0.9, 1.1), Config(2, 1.1, 1.1), Config(1, 1.3, 1.3)});
  EXPECT_EQ(w.index, 2);
}

TEST(PickWinner, SecondRunFailed_Demoted) {
  Winner w = PickWinner({Config(1, 1.0, kInf), Config(7, 1.5, 1.5)});
  EXPECT_EQ(w.index, 7);
}

TEST(PickWinner, NothingFinite_NoWinner) {
  EXPECT_EQ(PickWinner({}).index, -1);
  EXPECT_EQ(PickWinner({Config(1, kInf, kInf)}).index, -1);
}

}  // namespace
}  // namespace tunefarm::tuner
