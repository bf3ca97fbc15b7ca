// The tuning loop: propose a batch → build in parallel → measure on the farm → record every
// result in the tuning log → update the search strategy (which refits its cost model) →
// repeat, until the trial budget, early stopping, exhaustion of the space or cancellation.
// Before declaring a winner the top-k configs are measured again (on a second device when the
// farm has one), each config scores the mean of its two runs, and the winner is picked only
// where its lead is beyond noise (2% or its own run-to-run spread), breaking
// ties by the smaller config index, so the same job gives the same answer twice.
#ifndef TUNEFARM_TUNER_TUNING_TUNER_H_
#define TUNEFARM_TUNER_TUNING_TUNER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/version.h"
#include "db/tuning_log.h"
#include "tuner/search/search_strategy.h"
#include "tuner/tuning/measurer.h"
#include "tuner/tuning/task.h"
#include "tuner/tuning/winner.h"

namespace tunefarm::tuner {

struct TuneOptions {
  // Measurements to make (including ones already in the log for this workload, target and
  // device key: a restarted job continues where it stopped).
  int trials = 1000;
  // Configs built and measured per round.
  int batch_size = 16;
  // Stop after this many trials without a better config (0: never).
  int early_stopping = 0;
  // Configs re-measured before the winner is declared (0: none), and the rounds they are
  // re-measured in (each round measures all of them; the winner is the config whose
  // re-measurements' median is lowest, winner.h).
  int top_k = 5;
  int top_k_rounds = 3;
  // Threads compiling a round's candidates in parallel (the tuner machine's cores).
  int build_threads = 2;
  // When set, builds a round's configs instead (e.g. on the farm's builder workers,
  // tuner/service/farm_build.h); results in the order of the indices, as BuildAll's.
  std::function<std::vector<BuildResult>(const std::vector<int64_t>& indices)> build_batch;
  // Job id the records carry in the tuning log (0: none).
  int64_t db_job_id = 0;
  // Stored with every record ("tunefarm X.Y.Z"), so results of another tuner version can be
  // told apart.
  std::string tuner_version = kTunerVersion;
  // Load earlier records of this workload/target/device key from the log (never re-measure).
  bool resume = true;
  // Configs measured first, as the first round, before the strategy proposes any (e.g. the
  // translated picks of an AutoTVM log: tune --seed-from-log). Indices outside the space,
  // repeats and configs already measured (resumed) are skipped; at most one batch is used.
  std::vector<int64_t> seed_configs;
  // Source of every time the session reads: records' timestamps, elapsed time and ETA, and the
  // split of time between phases. Must outlive the session.
  const Clock* clock = RealClock::Get();
};

// Where the wall time went.
struct TuneTimeSplit {
  // Lowering and compiling candidates (and the reference program).
  double build_s = 0;
  // Waiting for the farm's results, recording excluded.
  double measure_s = 0;
  // Search strategy: proposing (simulated annealing) and updating (model refits).
  double search_s = 0;
  // Writing records into the tuning log.
  double record_s = 0;
  // The whole session.
  double total_s = 0;
};

// A snapshot for progress displays.
struct TuneProgress {
  // Trials counted so far (resumed ones included) and the budget.
  int trials_done = 0;
  int trials_total = 0;
  // Trials whose config failed (build, load, run, wrong answer, timeout, ...).
  int errors = 0;
  // The best valid config so far: its rate, its median cost in seconds (+inf before any) and
  // its knobs as JSON ("" before any).
  double best_gflops = 0;
  double best_cost_s = 0;
  std::string best_config;
  // Wall time since the session started, and the time left at this run's pace.
  double elapsed_s = 0;
  double eta_s = 0;
  // Where the time went so far (total_s is elapsed_s).
  TuneTimeSplit time;
};

// What a finished session found.
struct TuneResult {
  // Trials counted (resumed ones included).
  int trials = 0;
  // Measured by this run (the rest came from the log).
  int measured = 0;
  // Trials whose config failed.
  int errors = 0;
  // Configs of TuneOptions::seed_configs measured as the first round.
  int seeded = 0;
  // The winner after the top-k re-measurement (-1: no valid config): index, knobs as JSON, cost
  // in seconds and rate.
  int64_t best_index = -1;
  std::string best_config;
  double best_cost_s = 0;
  double best_gflops = 0;
  // Best GFLOP/s after each trial of this run and the resumed ones, in order.
  std::vector<double> curve_gflops;
  // Where this run's time went, on the session's clock.
  TuneTimeSplit time;
  // Why the session ended before its budget, if it did: no improvement for early_stopping
  // trials, cancelled by the caller, or every config of the space tried.
  bool early_stopped = false;
  bool cancelled = false;
  bool exhausted = false;
  // The re-measured configs, in the order of their first measurement (fastest first).
  std::vector<RemeasuredConfig> top_k;
};

// One task's tuning, a round at a time, so a scheduler can interleave several tasks.
class TuningSession {
 public:
  // Builds the reference program and loads the task's earlier records from the log (when
  // resuming). `strategy`, `measurer` and `log` (may be null) must outlive the session.
  // Errors: the reference program does not build (Internal); the log cannot be read.
  static absl::StatusOr<std::unique_ptr<TuningSession>> Start(const TuneTask& task,
                                                              SearchStrategy* strategy,
                                                              Measurer* measurer,
                                                              db::TuningLog* log,
                                                              const TuneOptions& options);
  // One round: propose, build, measure, record, update. Does nothing once done().
  // Errors: the farm or the log failed (what was recorded before stays recorded).
  absl::Status Step();
  // Budget spent, early stopping triggered, or the space exhausted.
  bool done() const;
  // Re-measures the top-k, picks the winner and returns the whole result.
  absl::StatusOr<TuneResult> Finish(bool cancelled);

  // Where the session stands, for progress displays.
  TuneProgress Progress() const;
  const TuneTask& task() const { return task_; }
  // Best cost so far (seconds; +inf when nothing valid yet).
  double best_cost_s() const { return result_.best_cost_s; }
  // Trials counted so far (resumed ones included).
  int trials() const { return result_.trials; }

 private:
  TuningSession(const TuneTask& task, SearchStrategy* strategy, Measurer* measurer,
                db::TuningLog* log, const TuneOptions& options);
  // Counts one trial of config `index` with `cost` seconds (+inf: failed) measured on `worker`,
  // and moves the best and the early-stopping count.
  void Observe(int64_t index, double cost, const std::string& worker = "");
  // A sink that records each result of the configs `indices` (in build order) into the log as
  // it arrives; empty without a log. `indices` must outlive the Measure call.
  ResultSink RecordInto(const std::vector<int64_t>& indices);
  double Gflops(double cost) const;
  // The seed configs still to measure (at most `n`), once: empty after the first call.
  std::vector<int64_t> TakeSeeds(int n);

  // As given to Start.
  TuneTask task_;
  SearchStrategy* strategy_;
  Measurer* measurer_;
  db::TuningLog* log_;
  TuneOptions options_;
  // The unscheduled program, built once: every measurement is checked against it.
  BuildResult reference_;
  // The result so far; Finish completes it.
  TuneResult result_;
  // Every config seen: its costs in the order measured (the resumed log's records first; +inf:
  // failed), for the final ranking, and the worker of its fastest measurement.
  struct Seen {
    std::vector<double> costs_s;
    double best_s;
    std::string worker;
  };
  std::map<int64_t, Seen> seen_;
  // Trials since the best last improved (early stopping).
  int since_improvement_ = 0;
  // Whether the seed configs were taken (they make the first round only).
  bool seeds_taken_ = false;
  // When Start ran, on options_.clock.
  absl::Time start_;
};

// Runs a whole session. `log` may be null (nothing recorded, nothing resumed); `cancel` may be
// null. Errors: the reference program does not build (Internal), the farm is unreachable or refuses
// the job, or the log cannot be written (nothing measured is silently dropped: the error is
// returned with what was recorded so far committed).
absl::StatusOr<TuneResult> Tune(const TuneTask& task, SearchStrategy& strategy, Measurer& measurer,
                                db::TuningLog* log, const TuneOptions& options,
                                const std::function<void(const TuneProgress&)>& on_progress = {},
                                const std::atomic<bool>* cancel = nullptr);

// The cost of a result in seconds: the median of its repeats; +inf when it failed. The log's
// records have the same statistic (db::RecordCost), so resumed and transferred history ranks
// configs exactly as fresh measurements do.
double ResultCost(const v1::MeasureResult& r);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_TUNING_TUNER_H_
