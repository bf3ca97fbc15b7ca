#include "tuner/tuning/strategy_factory.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "db/test_records.h"
#include "db/tuning_log.h"
#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

// The transfer history of a dense task: the records of the other dense shapes on the same
// device key and target, one group per shape, lowered for their features; the task's own
// shape's records, configs out of their space and other device keys are left out. On four
// threads it is the history computed on one.
TEST(LoadTransferHistory, OtherShapesRows_SameOnAnyThreads) {
  auto log = db::TuningLog::Open(::testing::TempDir() + "/history.db");
  ASSERT_TRUE(log.ok()) << log.status();
  const db::Workload own = db::testing::DenseWorkload(128, 128, 128);
  const db::Workload a = db::testing::DenseWorkload(64, 64, 64);
  const db::Workload b = db::testing::DenseWorkload(64, 128, 32);
  std::vector<db::Record> records;
  for (int64_t i = 0; i < 12; ++i) {
    records.push_back(db::testing::MakeRecord(a, i, 1e-5 * (1 + i)));
    records.push_back(db::testing::MakeRecord(b, 2 * i, 2e-5 * (1 + i)));
    records.push_back(db::testing::MakeRecord(own, i, 1e-4));
  }
  records.push_back(db::testing::MakeErrorRecord(a, 20, db::ErrorClass::kRuntimeError));
  records.push_back(db::testing::MakeRecord(a, 1LL << 40, 1e-5));  // No point of a's space.
  db::Record elsewhere = db::testing::MakeRecord(a, 3, 1e-5);
  elsewhere.device_key = "cpu-other";
  records.push_back(elsewhere);
  ASSERT_TRUE((*log)->Insert(records).ok());

  auto task = MakeTask("dense", {128, 128, 128}, "float32", "llvm -mcpu=znver4", "cpu-znver4");
  ASSERT_TRUE(task.ok()) << task.status();
  const TransferHistory one = LoadTransferHistory(*task, log->get(), 1);
  const TransferHistory four = LoadTransferHistory(*task, log->get(), 4);
  ASSERT_EQ(one.x.size(), 25u);  // 12 + 12 + the failed one.
  ASSERT_EQ(one.cost_s.size(), 25u);
  ASSERT_EQ(one.group.size(), 25u);
  int infinite = 0;
  for (double c : one.cost_s) infinite += std::isinf(c);
  EXPECT_EQ(infinite, 1);
  int group_a = 0, group_b = 0;
  for (int g : one.group) (g == one.group.front() ? group_a : group_b)++;
  EXPECT_EQ(group_a + group_b, 25);
  EXPECT_EQ(std::min(group_a, group_b), 12);  // One group per shape.
  for (const std::vector<float>& x : one.x) EXPECT_EQ(x.size(), one.x.front().size());
  EXPECT_EQ(four.x, one.x);
  EXPECT_EQ(four.cost_s, one.cost_s);
  EXPECT_EQ(four.group, one.group);

  EXPECT_TRUE(LoadTransferHistory(*task, nullptr, 4).x.empty());
}

}  // namespace
}  // namespace tunefarm::tuner
