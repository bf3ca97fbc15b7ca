// The tuning loop against a fake measurer: budget, early stopping, exhaustion, cancellation,
// and the winner after the top configs are re-measured.
#include "tuner/tuning/tuner.h"

#include <cstdio>
#include <set>
#include <string>

#include "db/tuning_log.h"
#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

// Proposes indices 0, 1, 2, ... in order.
class Sequential : public SearchStrategy {
 public:
  explicit Sequential(int64_t size) : size_(size) {}
  absl::StatusOr<std::vector<int64_t>> NextBatch(int n) override {
    std::vector<int64_t> out;
    while (static_cast<int>(out.size()) < n && next_ < size_) out.push_back(next_++);
    return out;
  }
  absl::Status Update(const std::vector<MeasuredPoint>&) override { return absl::OkStatus(); }
  std::string name() const override { return "sequential"; }

 private:
  int64_t size_;
  int64_t next_ = 0;
};

// Cost = table[index] seconds (1 ms when absent). An index in `sequence` costs its n-th entry on
// its n-th measurement instead (the last one after that). Results come from worker "dev0" on even
// calls, "dev1" on odd ones; `avoided` holds what each call asked to avoid.
class FakeMeasurer : public Measurer {
 public:
  std::map<int64_t, double> table;
  std::map<int64_t, std::vector<double>> sequence;
  int calls = 0;
  std::vector<std::vector<std::string>> avoided;
  // After this many results the farm "fails": the rest of that batch never arrives.
  int fail_after = -1;
  MeasuredBatch Measure(const std::vector<BuildResult>& builds, const BuildResult&,
                        const std::vector<std::string>& avoid, const ResultSink& sink) override {
    avoided.push_back(avoid);
    MeasuredBatch out;
    for (const BuildResult& b : builds) {
      if (fail_after == 0) {
        out.results.emplace_back();
        out.arrived.push_back(false);
        out.status = absl::DeadlineExceededError("farm unreachable");
        continue;
      }
      if (fail_after > 0) --fail_after;
      v1::MeasureResult r;
      if (!b.status.ok()) {
        r.set_error(v1::BUILD_ERROR);
      } else {
        auto it = table.find(b.index);
        double cost = it == table.end() ? 1e-3 : it->second;
        const int n = seen_[b.index]++;
        if (auto seq = sequence.find(b.index); seq != sequence.end() && !seq->second.empty()) {
          cost = seq->second[std::min<size_t>(n, seq->second.size() - 1)];
        }
        r.add_costs_s(cost);
        r.set_worker_id(calls % 2 == 0 ? "dev0" : "dev1");
      }
      if (sink) {
        if (absl::Status s = sink(out.results.size(), r); !s.ok()) out.status = s;
      }
      out.results.push_back(r);
      out.arrived.push_back(true);
    }
    ++calls;
    return out;
  }
  absl::StatusOr<int> LiveDevices() override { return 2; }

 private:
  std::map<int64_t, int> seen_;
};

TuneTask SmallTask() {
  auto t = MakeTask("bias_relu", {4, 16}, "float32", "llvm", "cpu-test");
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// The top configs are re-measured in rounds, each on another device than the last, and the
// winner is the config whose re-measurements are fastest: 5's lucky first run (the fastest
// trial) does not make it win over 3, which is faster every time after.
TEST(Tune, TopK_ReMeasuredInRounds_LuckyFirstRunDoesNotWin) {
  TuneTask task = SmallTask();
  FakeMeasurer m;
  m.table = {{3, 0.5e-3}, {7, 0.9e-3}};
  m.sequence = {{5, {0.45e-3, 0.52e-3}}};
  Sequential s(task.space->size());
  TuneOptions o;
  o.trials = 8;
  o.batch_size = 4;
  o.top_k = 3;
  o.top_k_rounds = 3;
  const std::string path = ::testing::TempDir() + "/lucky.db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  auto log = db::TuningLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  auto r = Tune(task, s, m, log->get(), o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->trials, 8);
  ASSERT_EQ(r->top_k.size(), 3u);
  EXPECT_EQ(r->top_k[0].index, 5);  // Fastest first measured.
  EXPECT_EQ(r->best_index, 3);
  EXPECT_DOUBLE_EQ(r->best_cost_s, 0.5e-3);
  for (const RemeasuredConfig& rc : r->top_k) {
    EXPECT_EQ(rc.remeasured_costs_s.size(), 3u) << rc.index;
  }
  EXPECT_DOUBLE_EQ(r->top_k[0].remeasured_cost_s, 0.52e-3);
  // 2 rounds of trials, then 3 of re-measurement: each asks to avoid the device of the one
  // before (the trials' devices, then the last round's).
  ASSERT_EQ(m.calls, 5);
  // 5 and 7 were trials of the second round (dev1), 3 of the first (dev0).
  EXPECT_EQ(m.avoided[2], (std::vector<std::string>{"dev1", "dev0", "dev1"}));
  EXPECT_EQ(m.avoided[3], std::vector<std::string>(3, "dev0"));
  EXPECT_EQ(m.avoided[4], std::vector<std::string>(3, "dev1"));
  EXPECT_EQ(r->top_k[0].second_worker, "dev0");
  // The log ranks as the job did: best-k (and so `best` and `export`) answers the winner, not
  // the config with the fastest record.
  db::BestQuery q;
  q.workload = task.DbWorkload();
  q.target = task.target.str;
  q.k = 3;
  auto best = (*log)->BestK(q);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 3u);
  EXPECT_EQ((*best)[0].record.config_index, 3);
  EXPECT_DOUBLE_EQ((*best)[0].cost_s, r->best_cost_s);
  EXPECT_TRUE((*best)[0].confirmed);
  EXPECT_EQ((*best)[0].runs, 3);
  EXPECT_EQ((*best)[1].record.config_index, 5);
  EXPECT_DOUBLE_EQ((*best)[1].cost_s, 0.52e-3);
}

// Every time the session reads comes from the injected clock: with a fake one that a measurer
// moves by 2 s per batch, records carry the fake time and progress counts fake seconds.
TEST(Tune, InjectedClock_TimestampsElapsedAndEtaFollowIt) {
  TuneTask task = SmallTask();
  auto log = db::TuningLog::Open(::testing::TempDir() + "/clock.db");
  ASSERT_TRUE(log.ok()) << log.status();
  FakeClock clock(absl::UnixEpoch() + absl::Seconds(5000));
  class TickingMeasurer : public FakeMeasurer {
   public:
    explicit TickingMeasurer(FakeClock* c) : clock_(c) {}
    MeasuredBatch Measure(const std::vector<BuildResult>& builds, const BuildResult& ref,
                          const std::vector<std::string>& avoid, const ResultSink& sink) override {
      clock_->Advance(absl::Seconds(2));
      return FakeMeasurer::Measure(builds, ref, avoid, sink);
    }
    FakeClock* clock_;
  } m(&clock);
  Sequential s(task.space->size());
  TuneOptions o;
  o.trials = 8;
  o.batch_size = 4;
  o.top_k = 0;
  o.clock = &clock;
  std::vector<TuneProgress> progress;
  auto r = Tune(task, s, m, log->get(), o, [&](const TuneProgress& p) { progress.push_back(p); });
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_DOUBLE_EQ(r->time.total_s, 4.0);  // two batches
  EXPECT_DOUBLE_EQ(r->time.measure_s, 4.0);
  ASSERT_EQ(progress.size(), 4u);  // at the start, after each batch and at the end
  EXPECT_DOUBLE_EQ(progress[1].elapsed_s, 2.0);
  EXPECT_DOUBLE_EQ(progress[1].eta_s, 2.0);  // 4 trials left at 0.5 s each
  std::set<double> stamps;
  ASSERT_TRUE((*log)
                  ->ForEachRecord({},
                                  [&](const db::Record& rec) {
                                    stamps.insert(rec.timestamp);
                                    return absl::OkStatus();
                                  })
                  .ok());
  EXPECT_EQ(stamps, (std::set<double>{5002.0, 5004.0}));
}

TEST(Tune, FarmFailsPartWay_ArrivedResultsRecordedThenError) {
  TuneTask task = SmallTask();
  auto log = db::TuningLog::Open(::testing::TempDir() + "/partial.db");
  ASSERT_TRUE(log.ok()) << log.status();
  FakeMeasurer m;
  m.fail_after = 6;  // the second batch of 4 gets 2 results, then the farm is gone
  Sequential s(task.space->size());
  TuneOptions o;
  o.trials = 12;
  o.batch_size = 4;
  o.top_k = 0;
  auto r = Tune(task, s, m, log->get(), o);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded) << r.status();
  EXPECT_EQ(*(*log)->CountRecords(), 6);
}

TEST(Tune, ClearLeader_WinsOverSmallerIndex) {
  TuneTask task = SmallTask();
  FakeMeasurer m;
  m.table = {{2, 0.8e-3}, {6, 0.4e-3}};
  Sequential s(task.space->size());
  TuneOptions o;
  o.trials = 8;
  o.top_k = 2;
  auto r = Tune(task, s, m, nullptr, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->best_index, 6);
  EXPECT_NEAR(r->best_gflops, task.workload.flop / 0.4e-3 * 1e-9, 1e-6);
}

// Records which indices each batch measured.
class BatchRecorder : public FakeMeasurer {
 public:
  std::vector<std::vector<int64_t>> batches;
  MeasuredBatch Measure(const std::vector<BuildResult>& builds, const BuildResult& ref,
                        const std::vector<std::string>& prefer, const ResultSink& sink) override {
    batches.emplace_back();
    for (const BuildResult& b : builds) batches.back().push_back(b.index);
    return FakeMeasurer::Measure(builds, ref, prefer, sink);
  }
};

TEST(Tune, SeedConfigs_MeasuredFirstOnceThenStrategy) {
  TuneTask task = SmallTask();
  ASSERT_GE(task.space->size(), 8);
  BatchRecorder m;
  Sequential s(task.space->size());
  TuneOptions o;
  o.trials = 8;
  o.batch_size = 4;
  o.top_k = 0;
  // Out of the space, repeated and beyond one batch: skipped.
  o.seed_configs = {7, -1, 5, 7, task.space->size(), 6, 3, 2};
  auto r = Tune(task, s, m, nullptr, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->seeded, 4);
  ASSERT_EQ(m.batches.size(), 2u);
  EXPECT_EQ(m.batches[0], (std::vector<int64_t>{7, 5, 6, 3}));
  EXPECT_EQ(m.batches[1], (std::vector<int64_t>{0, 1, 2, 3}));  // the strategy's own
}

TEST(Tune, EarlyStopping_StopsAfterNoImprovement) {
  TuneTask task = SmallTask();
  FakeMeasurer m;
  m.table = {{0, 0.1e-3}};
  Sequential s(task.space->size());
  TuneOptions o;
  o.trials = 100;
  o.batch_size = 2;
  o.early_stopping = 6;
  o.top_k = 0;
  auto r = Tune(task, s, m, nullptr, o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->early_stopped);
  EXPECT_LE(r->trials, 8);
}

TEST(Tune, SmallSpace_Exhausted) {
  TuneTask task = SmallTask();
  FakeMeasurer m;
  Sequential s(task.space->size());
  TuneOptions o;
  o.trials = 100000;
  o.top_k = 0;
  auto r = Tune(task, s, m, nullptr, o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->exhausted);
  EXPECT_EQ(r->trials, task.space->size());
}

TEST(Tune, Cancelled_StopsAndSkipsTopK) {
  TuneTask task = SmallTask();
  FakeMeasurer m;
  Sequential s(task.space->size());
  std::atomic<bool> cancel{false};
  TuneOptions o;
  o.trials = 100;
  o.batch_size = 2;
  auto r = Tune(
      task, s, m, nullptr, o,
      [&](const TuneProgress& p) {
        if (p.trials_done >= 4) cancel = true;
      },
      &cancel);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->cancelled);
  EXPECT_TRUE(r->top_k.empty());
  EXPECT_LE(r->trials, 6);
}

}  // namespace
}  // namespace tunefarm::tuner
