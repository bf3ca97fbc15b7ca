// Re-measuring one config: every run is a request of its own and a record in the log, the
// median is over the runs that succeeded, and bad input is an error.
#include "tuner/tuning/remeasure.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

// Run r costs costs[r] seconds; a cost <= 0 is a failed run (RUNTIME_ERROR).
class ScriptedMeasurer : public Measurer {
 public:
  std::vector<double> costs;
  int calls = 0;
  MeasuredBatch Measure(const std::vector<BuildResult>& builds, const BuildResult&,
                        const std::vector<std::string>&, const ResultSink& sink) override {
    MeasuredBatch out;
    EXPECT_EQ(builds.size(), 1u);
    v1::MeasureResult r;
    r.set_request_id(absl::StrCat("run-", calls));
    const double cost = calls < static_cast<int>(costs.size()) ? costs[calls] : 1e-3;
    if (cost > 0) {
      r.add_costs_s(cost);
    } else {
      r.set_error(v1::RUNTIME_ERROR);
      r.set_message("kernel crashed");
    }
    ++calls;
    if (sink) out.status = sink(0, r);
    out.results.push_back(r);
    out.arrived.push_back(true);
    return out;
  }
  absl::StatusOr<int> LiveDevices() override { return 1; }
};

TuneTask SmallTask() {
  auto t = MakeTask("bias_relu", {4, 16}, "float32", "llvm", "cpu-test");
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

TEST(Remeasure, EveryRunRecorded_MedianOfTheSuccessfulOnes) {
  TuneTask task = SmallTask();
  auto log = db::TuningLog::Open(::testing::TempDir() + "/remeasure.db");
  ASSERT_TRUE(log.ok()) << log.status();
  ScriptedMeasurer m;
  m.costs = {3e-3, 1e-3, -1, 2e-3, 5e-3};
  auto again = RemeasureConfig(task, 1, m, log->get(), {.runs = 5});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(m.calls, 5);
  EXPECT_EQ(again->results.size(), 5u);
  ASSERT_EQ(again->costs_s.size(), 4u);
  EXPECT_DOUBLE_EQ(again->median_s, 2.5e-3);  // of 1, 2, 3, 5 ms
  EXPECT_EQ(*(*log)->CountRecords(), 5);      // the failed run too
}

TEST(Remeasure, NoRunSucceeds_InternalWithTheMessage) {
  TuneTask task = SmallTask();
  ScriptedMeasurer m;
  m.costs = {-1, -1};
  auto again = RemeasureConfig(task, 0, m, nullptr, {.runs = 2});
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kInternal);
  EXPECT_NE(again.status().message().find("kernel crashed"), std::string::npos);
}

TEST(Remeasure, BadRunsOrIndex_InvalidArgument) {
  TuneTask task = SmallTask();
  ScriptedMeasurer m;
  EXPECT_EQ(RemeasureConfig(task, 0, m, nullptr, {.runs = 0}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RemeasureConfig(task, 0, m, nullptr, {.runs = 101}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RemeasureConfig(task, task.space->size(), m, nullptr, {.runs = 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RemeasureConfig(task, -1, m, nullptr, {.runs = 1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m.calls, 0);
}

}  // namespace
}  // namespace tunefarm::tuner
