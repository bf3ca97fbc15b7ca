// Sample efficiency of the search strategies, compared in seconds by replay.
//
//   bazel run -c opt //bench:tuning_curves -- [--quick]
//
// 1. Sweep: every config of a dense workload's space is built and measured once on the
//    embedded local farm (the space has ~1,400 points, so the sweep is exhaustive).
// 2. Replay: random, GA, XGBoost with the rank objective and with the regression objective
//    run against that table for 5 seeds each. The target is 90% of the best GFLOP/s found by
//    1,000 random trials (of the same seed); we report the median trials to reach it.
// 3. Transfer: three other dense shapes are swept into a tuning log; XGBoost on the target with
//    that history is compared with XGBoost without it (trials to 90% of the space's best, 9
//    seeds).
// 4. Overhead: one real tuning run (model-based, through the farm) reports where its wall time
//    went; overhead_frac = (model fit + search) / total.
// Writes tuning_curves.svg (median best-so-far GFLOP/s per trial, one curve per strategy) and
// ends with `RESULT xgb_rank_trials_to_90=… xgb_reg_trials_to_90=… ga_trials_to_90=…
// random_trials_to_90=… transfer_trials_to_90=… overhead_frac=…`.
#include <stdlib.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "db/tuning_log.h"
#include "farm/farm_setup.h"
#include "report/svg_plot.h"
#include "tuner/search/replay.h"
#include "tuner/tuning/strategy_factory.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::bench {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kSeeds = 5;
// The transfer comparison is decided by few lucky early trials; more seeds steady its median.
constexpr int kTransferSeeds = 9;

using Table = std::map<int64_t, double>;

// Builds and measures every config of `task` once.
absl::StatusOr<Table> Sweep(const tuner::TuneTask& task, tuner::Measurer& measurer, int threads) {
  Table table;
  tuner::BuildResult reference = tuner::BuildConfig(task, std::nullopt);
  if (!reference.status.ok()) return reference.status;
  const int64_t n = task.space->size();
  constexpr int kBatch = 64;
  for (int64_t start = 0; start < n; start += kBatch) {
    std::vector<int64_t> batch;
    for (int64_t i = start; i < std::min(n, start + kBatch); ++i) batch.push_back(i);
    auto builds = tuner::BuildAll(task, batch, threads);
    tuner::MeasuredBatch measured = measurer.Measure(builds, reference, {}, nullptr);
    if (!measured.status.ok()) return measured.status;
    for (size_t i = 0; i < batch.size(); ++i) {
      table[batch[i]] = tuner::ResultCost(measured.results[i]);
    }
    std::fprintf(stderr, "\r  sweep %s: %lld/%lld configs   ", task.workload.ToString().c_str(),
                 static_cast<long long>(std::min(n, start + kBatch)), static_cast<long long>(n));
  }
  std::fprintf(stderr, "\n");
  return table;
}

double BestCost(const Table& t) {
  double best = kInf;
  for (const auto& [i, c] : t) best = std::min(best, c);
  return best;
}

struct Curves {
  std::vector<std::vector<double>> best_so_far;  // Per seed.
  std::vector<int> trials_to_target;             // Per seed; -1 = never.
};

int MedianTrials(std::vector<int> v, int cap) {
  for (int& t : v) {
    if (t < 0) t = cap + 1;  // Never reached: worse than the budget.
  }
  return static_cast<int>(Median(std::vector<double>(v.begin(), v.end())));
}

}  // namespace

int Run(bool quick) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int64_t s = quick ? 128 : 512;
  const std::vector<int64_t> target_shape = {s, s, s};
  const std::vector<std::vector<int64_t>> history_shapes = {
      {s / 2, s, s}, {s, s / 2, s}, {s, s, s / 2}};
  const int trials = quick ? 300 : 1000;
  FarmSetupOptions fo;
  fo.num_workers = cores;
  fo.threads_per_worker = 1;
  fo.key = "cpu-curves";
  auto farm = StartFarm(fo);
  if (!farm.ok()) return std::fprintf(stderr, "%s\n", farm.status().ToString().c_str()), 1;
  tuner::TrackerMeasurerOptions mo;
  mo.job_id = "curves";
  mo.device_key = fo.key;
  mo.timing.set_repeat(3);
  mo.timing.set_min_repeat_ms(quick ? 2 : 5);
  tuner::TrackerMeasurer measurer((*farm)->client.get(), mo);

  auto task = tuner::MakeTask("dense", target_shape, "float32", "llvm", fo.key);
  if (!task.ok()) return 1;
  auto table = Sweep(*task, measurer, cores);
  if (!table.ok()) return std::fprintf(stderr, "%s\n", table.status().ToString().c_str()), 1;
  const double flop = task->workload.flop;
  auto lookup = [&](int64_t i) -> std::optional<double> {
    auto it = table->find(i);
    if (it == table->end()) return std::nullopt;
    return it->second;
  };

  // Replays of each strategy; the target is set per seed from 1,000 random trials.
  std::map<std::string, Curves> curves;
  for (int seed = 0; seed < kSeeds; ++seed) {
    auto random = tuner::MakeStrategy("random", *task, seed, nullptr);
    auto r1000 = tuner::Replay(**random, lookup, 1000, 16);
    double target = r1000->best_so_far.back() / 0.9;
    for (const std::string name : {"random", "ga", "xgb", "xgb_reg"}) {
      auto strategy = tuner::MakeStrategy(name, *task, seed, nullptr);
      if (!strategy.ok()) return 1;
      auto r = tuner::Replay(**strategy, lookup, trials, 16);
      if (!r.ok()) return std::fprintf(stderr, "%s\n", r.status().ToString().c_str()), 1;
      curves[name].best_so_far.push_back(r->best_so_far);
      curves[name].trials_to_target.push_back(tuner::TrialsToReach(r->best_so_far, target));
      std::fprintf(stderr, "  seed %d %-8s trials to 90%% of random-1000 best: %d\n", seed,
                   name.c_str(), curves[name].trials_to_target.back());
    }
  }

  // Transfer learning: three other shapes swept into a log.
  std::string db_path = absl::StrCat(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
                                     "/tunefarm_curves_", getpid(), ".db");
  std::remove(db_path.c_str());
  auto log = db::TuningLog::Open(db_path);
  if (!log.ok()) return 1;
  for (const auto& shape : history_shapes) {
    auto other = tuner::MakeTask("dense", shape, "float32", "llvm", fo.key);
    auto t = Sweep(*other, measurer, cores);
    if (!t.ok()) return 1;
    std::vector<db::Record> records;
    for (const auto& [index, cost] : *t) {
      db::Record r;
      r.workload = other->DbWorkload();
      r.target = other->target.str;
      r.device_key = fo.key;
      r.config_index = index;
      r.config_json = other->space->Get(index)->ToJson();
      if (std::isfinite(cost)) {
        r.costs = {cost};
      } else {
        r.error = db::ErrorClass::kRuntimeError;
        r.error_message = "failed";
      }
      r.timestamp = 1;
      records.push_back(std::move(r));
    }
    if (!(*log)->Insert(records).ok()) return 1;
  }
  const double own_target = BestCost(*table) / 0.9;
  for (int seed = 0; seed < kTransferSeeds; ++seed) {
    for (bool with_history : {false, true}) {
      auto strategy = tuner::MakeStrategy("xgb", *task, seed, with_history ? log->get() : nullptr);
      auto r = tuner::Replay(**strategy, lookup, trials, 16);
      if (!r.ok()) return 1;
      std::string name = with_history ? "xgb+history" : "xgb (no history)";
      curves[name].best_so_far.push_back(r->best_so_far);
      curves[name].trials_to_target.push_back(tuner::TrialsToReach(r->best_so_far, own_target));
    }
  }
  std::remove(db_path.c_str());

  // Overhead of a real model-based run through the farm.
  auto strategy = tuner::MakeStrategy("xgb", *task, 0, nullptr);
  tuner::TuneOptions to;
  to.trials = quick ? 96 : 1000;
  to.batch_size = 16;
  to.build_threads = cores;
  to.top_k = 0;
  to.resume = false;
  auto run = tuner::Tune(*task, **strategy, measurer, nullptr, to);
  if (!run.ok()) return std::fprintf(stderr, "%s\n", run.status().ToString().c_str()), 1;
  const auto& tm = run->time;
  double overhead = tm.search_s / tm.total_s;

  // Plot: median best-so-far GFLOP/s per trial.
  report::PlotSpec plot;
  plot.title = absl::StrCat("dense ", s, "x", s, "x", s, ": best GFLOP/s vs trials (median of ",
                            kSeeds, " seeds)");
  plot.x_label = "trials";
  plot.y_label = "GFLOP/s";
  const char* colors[] = {"#7f7f7f", "#2ca02c", "#d62728", "#ff7f0e", "#1f77b4", "#9467bd"};
  int ci = 0;
  for (const auto& [name, c] : curves) {
    report::PlotSeries series{name, {}, colors[ci++ % 6], /*line=*/true};
    size_t len = c.best_so_far[0].size();
    for (const auto& v : c.best_so_far) len = std::min(len, v.size());
    for (size_t t = 0; t < len; ++t) {
      std::vector<double> at;
      for (const auto& v : c.best_so_far)
        at.push_back(std::isfinite(v[t]) ? flop / v[t] * 1e-9 : 0);
      series.points.push_back({static_cast<double>(t + 1), Median(at)});
    }
    plot.series.push_back(std::move(series));
  }
  std::string svg_path = "tuning_curves.svg";
  if (const char* dir = getenv("BUILD_WORKING_DIRECTORY"))
    svg_path = absl::StrCat(dir, "/", svg_path);
  std::ofstream(svg_path) << report::RenderSvgPlot(plot);

  std::printf("dense %lldx%lldx%lld: space %lld configs, best %.1f GFLOP/s\n",
              static_cast<long long>(s), static_cast<long long>(s), static_cast<long long>(s),
              static_cast<long long>(task->space->size()), flop / BestCost(*table) * 1e-9);
  std::printf("%-20s %8s  %s\n", "strategy", "median",
              "trials to 90% per seed (-1: not within budget)");
  for (const auto& [name, c] : curves) {
    std::string per;
    for (int t : c.trials_to_target) absl::StrAppend(&per, t, " ");
    std::printf("%-20s %8d  %s\n", name.c_str(), MedianTrials(c.trials_to_target, trials),
                per.c_str());
  }
  std::printf(
      "(random/ga/xgb/xgb_reg: target = 90%% of 1000 random trials' best; transfer rows: "
      "target = 90%% of the space's best)\n");
  std::printf(
      "tuning run of %d trials: total %.1fs = build %.1fs + measure %.1fs + search/model "
      "%.1fs + log %.1fs; overhead %.1f%%\n",
      run->trials, tm.total_s, tm.build_s, tm.measure_s, tm.search_s, tm.record_s, 100 * overhead);
  std::printf("wrote %s\n", svg_path.c_str());
  PrintResult(
      {{"xgb_rank_trials_to_90",
        std::to_string(MedianTrials(curves["xgb"].trials_to_target, trials))},
       {"xgb_reg_trials_to_90",
        std::to_string(MedianTrials(curves["xgb_reg"].trials_to_target, trials))},
       {"ga_trials_to_90", std::to_string(MedianTrials(curves["ga"].trials_to_target, trials))},
       {"random_trials_to_90",
        std::to_string(MedianTrials(curves["random"].trials_to_target, trials))},
       {"transfer_trials_to_90",
        std::to_string(MedianTrials(curves["xgb+history"].trials_to_target, trials))},
       {"no_transfer_trials_to_90",
        std::to_string(MedianTrials(curves["xgb (no history)"].trials_to_target, trials))},
       {"overhead_frac", Fixed(overhead)}});
  return 0;
}

}  // namespace tunefarm::bench
