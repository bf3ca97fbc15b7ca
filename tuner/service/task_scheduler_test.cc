#include "tuner/service/task_scheduler.h"

#include <cmath>

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

TEST(TaskScheduler, WarmUp_EveryTaskFirst) {
  TaskScheduler s({1, 1, 1});
  std::vector<bool> done(3, false);
  EXPECT_EQ(s.Pick(done), 0);
  s.Record(0, 1.0, 16);
  EXPECT_EQ(s.Pick(done), 1);
  s.Record(1, 1.0, 16);
  EXPECT_EQ(s.Pick(done), 2);
}

TEST(TaskScheduler, ImprovingTask_GetsTheRounds) {
  TaskScheduler s({1, 1});
  std::vector<bool> done(2, false);
  s.Record(0, 10.0, 16);
  s.Record(1, 10.0, 16);
  // Task 1 keeps improving, task 0 is flat.
  double cost1 = 10;
  int picks1 = 0;
  for (int round = 0; round < 10; ++round) {
    int t = s.Pick(done);
    if (t == 1) {
      ++picks1;
      cost1 *= 0.8;
      s.Record(1, cost1, 16);
    } else {
      s.Record(0, 10.0, 16);
    }
  }
  EXPECT_GE(picks1, 8);
}

TEST(TaskScheduler, HeavierWeight_PreferredAtEqualRates) {
  TaskScheduler s({1, 10});
  std::vector<bool> done(2, false);
  s.Record(0, 2.0, 16);
  s.Record(1, 2.0, 16);
  s.Record(0, 1.0, 16);
  s.Record(1, 1.0, 16);
  EXPECT_EQ(s.Pick(done), 1);
}

TEST(TaskScheduler, NoValidConfigYet_PickedFirst_AndDoneSkipped) {
  TaskScheduler s({1, 1});
  s.Record(0, 1.0, 16);
  s.Record(1, INFINITY, 16);
  EXPECT_EQ(s.Pick({false, false}), 1);
  EXPECT_EQ(s.Pick({false, true}), 0);
  EXPECT_EQ(s.Pick({true, true}), -1);
}

}  // namespace
}  // namespace tunefarm::tuner
