// End to end: a tuning job on the embedded local farm (tracker + sandboxed workers) records
// every measurement in the tuning log, finds a valid best config, and a restarted job with the
// same log continues without re-measuring.
#include <algorithm>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "db/tuning_log.h"
#include "farm/farm_setup.h"
#include "gtest/gtest.h"
#include "tuner/tuning/task.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::tuner {
namespace {

// Uniform sampling without replacement; enough to drive the loop in this test.
class TestRandomSearch : public SearchStrategy {
 public:
  TestRandomSearch(const ConfigSpace* space, uint64_t seed) : space_(space), rng_(seed) {}
  absl::StatusOr<std::vector<int64_t>> NextBatch(int n) override {
    std::vector<int64_t> out;
    for (int tries = 0; static_cast<int>(out.size()) < n && tries < 100 * n; ++tries) {
      int64_t i = static_cast<int64_t>(rng_() % static_cast<uint64_t>(space_->size()));
      if (visited_.insert(i).second) out.push_back(i);
    }
    return out;
  }
  absl::Status Update(const std::vector<MeasuredPoint>& results) override {
    for (const auto& r : results) visited_.insert(r.index);
    return absl::OkStatus();
  }
  std::string name() const override { return "test-random"; }

 private:
  const ConfigSpace* space_;
  std::mt19937_64 rng_;
  std::set<int64_t> visited_;
};

// The embedded local farm: `workers` sandboxed workers under device key `key`.
absl::StatusOr<std::unique_ptr<Farm>> StartTestFarm(const std::string& key, int workers) {
  FarmSetupOptions farm_options;
  farm_options.num_workers = workers;
  farm_options.key = key;
  farm_options.sandbox_memory_limit_mb = 2048;
  return StartFarm(farm_options);
}

// Measurement options of job `job` on `key`: `repeat` timed runs of at least 1 ms each.
TrackerMeasurerOptions MeasureOn(const std::string& job, const std::string& key, int repeat) {
  TrackerMeasurerOptions mo;
  mo.job_id = job;
  mo.device_key = key;
  mo.timing.set_repeat(repeat);
  mo.timing.set_min_repeat_ms(1);
  return mo;
}

TEST(TuneEndToEnd, DenseOnLocalFarm_RecordsEveryTrialAndResumes) {
  auto farm = StartTestFarm("cpu-test", 2);
  ASSERT_TRUE(farm.ok()) << farm.status();

  auto task = MakeTask("dense", {32, 64, 48}, "float32", "llvm", "cpu-test");
  ASSERT_TRUE(task.ok()) << task.status();
  std::string db_path = ::testing::TempDir() + "/tune_e2e.db";
  std::remove(db_path.c_str());
  auto log = db::TuningLog::Open(db_path);
  ASSERT_TRUE(log.ok()) << log.status();

  // The log's best-k first is the job's winner, at the job's score.
  auto ExpectLogAnswersTheWinner = [&](const TuneResult& r) {
    db::BestQuery q;
    q.workload = task->DbWorkload();
    q.target = task->target.str;
    auto best = (*log)->BestK(q);
    ASSERT_TRUE(best.ok()) << best.status();
    EXPECT_EQ(best->front().record.config_index, r.best_index);
    EXPECT_DOUBLE_EQ(best->front().cost_s, r.best_cost_s);
  };
  TrackerMeasurer measurer((*farm)->client.get(), MeasureOn("e2e", "cpu-test", 2));
  TuneOptions options;
  options.trials = 24;
  options.batch_size = 8;
  options.top_k = 3;
  int progress_calls = 0;
  {
    TestRandomSearch search(task->space.get(), 1);
    auto result = Tune(*task, search, measurer, log->get(), options,
                       [&](const TuneProgress&) { ++progress_calls; });
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->trials, 24);
    EXPECT_EQ(result->measured, 24);
    EXPECT_GE(result->best_index, 0);
    EXPECT_GT(result->best_gflops, 0);
    EXPECT_EQ(result->top_k.size(), 3u);
    for (const RemeasuredConfig& rc : result->top_k) {
      // Two live workers: the re-measurement runs on the other one.
      EXPECT_FALSE(rc.first_worker.empty());
      EXPECT_NE(rc.first_worker, rc.second_worker) << rc.config;
    }
    EXPECT_EQ(result->curve_gflops.size(), 24u);
    EXPECT_GE(progress_calls, 3);
    // The log answers the job's winner (what `best` lists first and `export` builds).
    ExpectLogAnswersTheWinner(*result);
  }
  // 24 trials + 3 configs re-measured in 3 rounds, each a record.
  EXPECT_EQ(*(*log)->CountRecords(), 33);

  // Restart with a larger budget: the 24 measured configs are not measured again (the log's 33
  // records count toward it).
  options.trials = 40;
  TestRandomSearch search2(task->space.get(), 1);
  auto again = Tune(*task, search2, measurer, log->get(), options);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->measured, 40 - 33);
  // The resumed job ranked its whole history, earlier re-measurements included, as the log does.
  ExpectLogAnswersTheWinner(*again);
}

// int16 on the wire: a program with an int16 input, and dense_u8s8_avx2.te, whose int8 weight
// the worker widens into an int16 argument once (a hoisted stage, its pack kernel) before
// timing: every trial is measured and checked against the unscheduled program on the local
// farm's sandboxed workers (until DTYPE_INT16, each failed with "unsupported dtype 0").
TEST(TuneEndToEnd, Int16ArgumentsOnLocalFarm_EveryTrialMeasured) {
  auto farm = StartTestFarm("cpu-int16", 1);
  ASSERT_TRUE(farm.ok()) << farm.status();
  std::ifstream in("examples/programs/dense_u8s8_avx2.te");
  std::stringstream widened;
  widened << in.rdbuf();
  ASSERT_FALSE(widened.str().empty()) << "examples/programs/dense_u8s8_avx2.te not found";
  const std::vector<std::pair<std::string, absl::flat_hash_map<std::string, int64_t>>> programs = {
      {"A = input(int16, [N, K])\nB[i] = sum(k: int32(A[i, k]) * 3)\n", {{"N", 37}, {"K", 9}}},
      {widened.str(), {{"M", 5}, {"N", 48}, {"K", 24}}}};
  for (const auto& [text, shapes] : programs) {
    auto task = MakeProgramTask("int16_e2e", text, shapes, "llvm", "cpu-int16");
    ASSERT_TRUE(task.ok()) << task.status();
    TrackerMeasurer measurer((*farm)->client.get(), MeasureOn("int16", "cpu-int16", 1));
    TuneOptions options;
    options.trials = std::min<int64_t>(8, task->space->size());
    options.batch_size = 4;
    options.top_k = 0;
    TestRandomSearch search(task->space.get(), 2);
    auto result = Tune(*task, search, measurer, nullptr, options, nullptr);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->measured, options.trials) << text;
    EXPECT_EQ(result->errors, 0) << text;
    EXPECT_GT(result->best_gflops, 0) << text;
  }
}

TEST(TuneEndToEnd, UnknownDeviceKey_NotFound) {
  FarmSetupOptions farm_options;
  farm_options.key = "cpu-test";
  farm_options.num_workers = 1;
  auto farm = StartFarm(farm_options);
  ASSERT_TRUE(farm.ok()) << farm.status();
  auto task = MakeTask("dense", {8, 16, 8}, "float32", "llvm", "gpu-nope");
  ASSERT_TRUE(task.ok());
  TrackerMeasurer measurer((*farm)->client.get(), {.job_id = "nokey", .device_key = "gpu-nope"});
  TestRandomSearch search(task->space.get(), 1);
  TuneOptions options;
  options.trials = 4;
  auto r = Tune(*task, search, measurer, nullptr, options);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound) << r.status();
}

}  // namespace
}  // namespace tunefarm::tuner
