// End to end: a tuning job on the embedded local farm (tracker + sandboxed workers) records
// every measurement in the tuning log, finds a valid best config, and a restarted job with the
// same log continues without re-measuring.
#include <algorithm>
#include <random>
#include <set>
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

TEST(TuneEndToEnd, DenseOnLocalFarm_RecordsEveryTrialAndResumes) {
  FarmSetupOptions farm_options;
  farm_options.num_workers = 2;
  farm_options.key = "cpu-test";
  farm_options.sandbox_memory_limit_mb = 2048;
  auto farm = StartFarm(farm_options);
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
  TrackerMeasurerOptions mo;
  mo.job_id = "e2e";
  mo.device_key = "cpu-test";
  mo.timing.set_repeat(2);
  mo.timing.set_min_repeat_ms(1);
  TrackerMeasurer measurer((*farm)->client.get(), mo);
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
  FarmSetupOptions farm_options;
  farm_options.num_workers = 1;
  farm_options.key = "cpu-int16";
  farm_options.sandbox_memory_limit_mb = 2048;
  auto farm = StartFarm(farm_options);
  ASSERT_TRUE(farm.ok()) << farm.status();
  const std::string widened =
      "A = input(uint8, [M, K])\n"
      "W = weight(int8, [N / 16, K / 4, 16, 4])\n"
      "W16[jb < N / 8, k < K / 4, o < 2, l < 8, p < 2] = "
      "int16(W[jb / 2, k, jb % 2 * 8 + l, 2 * p + o])\n"
      "C[i, j < N] = sum(k < K / 4: int32(A[i, 4 * k]) * int32(W16[j / 8, k, 0, j % 8, 0]) + "
      "int32(A[i, 4 * k + 1]) * int32(W16[j / 8, k, 1, j % 8, 0]) + int32(A[i, 4 * k + 2]) * "
      "int32(W16[j / 8, k, 0, j % 8, 1]) + int32(A[i, 4 * k + 3]) * "
      "int32(W16[j / 8, k, 1, j % 8, 1]))\n";
  const std::vector<std::pair<std::string, absl::flat_hash_map<std::string, int64_t>>> programs = {
      {"A = input(int16, [N, K])\nB[i] = sum(k: int32(A[i, k]) * 3)\n", {{"N", 37}, {"K", 9}}},
      {widened, {{"M", 5}, {"N", 48}, {"K", 24}}}};
  for (const auto& [text, shapes] : programs) {
    auto task = MakeProgramTask("int16_e2e", text, shapes, "llvm", "cpu-int16");
    ASSERT_TRUE(task.ok()) << task.status();
    TrackerMeasurerOptions mo;
    mo.job_id = "int16";
    mo.device_key = "cpu-int16";
    mo.timing.set_repeat(1);
    mo.timing.set_min_repeat_ms(1);
    TrackerMeasurer measurer((*farm)->client.get(), mo);
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
