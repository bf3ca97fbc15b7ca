#include "tuner/tuning/tuner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "db/config_rank.h"
#include "tuner/tuning/result_record.h"

namespace tunefarm::tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Time since construction on the session's clock, for the split of time between phases.
class Stopwatch {
 public:
  explicit Stopwatch(const Clock* clock) : clock_(clock), start_(clock->Now()) {}
  double Seconds() const { return absl::ToDoubleSeconds(clock_->Now() - start_); }

 private:
  const Clock* clock_;
  absl::Time start_;
};

}  // namespace

double ResultCost(const v1::MeasureResult& r) {
  if (r.error() != v1::ERROR_NONE || r.costs_s_size() == 0) return kInf;
  if (r.has_distribution() && r.distribution().median() > 0) return r.distribution().median();
  return db::MedianFiniteCost(r.costs_s());
}

TuningSession::TuningSession(const TuneTask& task, SearchStrategy* strategy, Measurer* measurer,
                             db::TuningLog* log, const TuneOptions& options)
    : task_(task),
      strategy_(strategy),
      measurer_(measurer),
      log_(log),
      options_(options),
      start_(options.clock->Now()) {
  result_.best_cost_s = kInf;
}

double TuningSession::Gflops(double cost) const {
  return std::isfinite(cost) && cost > 0 ? task_.workload.flop / cost * 1e-9 : 0.0;
}

void TuningSession::Observe(int64_t index, double cost, const std::string& worker) {
  auto [it, inserted] = seen_.emplace(index, Seen{{}, cost, worker});
  it->second.costs_s.push_back(cost);
  if (!inserted && cost < it->second.best_s) {
    it->second.best_s = cost;
    it->second.worker = worker;
  }
  ++result_.trials;
  if (!std::isfinite(cost)) ++result_.errors;
  bool better =
      cost < result_.best_cost_s || (cost == result_.best_cost_s && index < result_.best_index);
  if (better && std::isfinite(cost)) {
    result_.best_cost_s = cost;
    result_.best_index = index;
    since_improvement_ = 0;
  } else {
    ++since_improvement_;
  }
  result_.curve_gflops.push_back(Gflops(result_.best_cost_s));
}

absl::StatusOr<std::unique_ptr<TuningSession>> TuningSession::Start(const TuneTask& task,
                                                                    SearchStrategy* strategy,
                                                                    Measurer* measurer,
                                                                    db::TuningLog* log,
                                                                    const TuneOptions& options) {
  std::unique_ptr<TuningSession> s(new TuningSession(task, strategy, measurer, log, options));
  // Correctness reference: the unscheduled program.
  Stopwatch ref_watch(options.clock);
  s->reference_ = BuildConfig(task, std::nullopt);
  s->result_.time.build_s += ref_watch.Seconds();
  if (!s->reference_.status.ok()) {
    return absl::InternalError(absl::StrCat("the reference program of ", task.workload.ToString(),
                                            " does not build: ", s->reference_.status.message()));
  }
  // Resume: everything the log already holds for this workload, target and device key.
  if (log != nullptr && options.resume) {
    std::vector<MeasuredPoint> history;
    db::RecordFilter filter{task.workload.template_name, task.workload.ArgsJson(), task.target.str,
                            task.device_key};
    absl::Status st = log->ForEachRecord(filter, [&](const db::Record& r) {
      // A record from another version of the template's space cannot be replayed here.
      if (r.config_index < 0 || r.config_index >= task.space->size()) return absl::OkStatus();
      double cost = db::RecordCost(r);
      history.push_back(MeasuredPoint{r.config_index, cost});
      s->Observe(r.config_index, cost);
      return absl::OkStatus();
    });
    if (!st.ok()) return st;
    Stopwatch w(options.clock);
    if (!history.empty()) {
      if (absl::Status u = strategy->Update(history); !u.ok()) return u;
    }
    s->result_.time.search_s += w.Seconds();
  }
  return s;
}

ResultSink TuningSession::RecordInto(const std::vector<int64_t>& indices) {
  if (log_ == nullptr) return nullptr;
  return [this, &indices](size_t i, const v1::MeasureResult& r) -> absl::Status {
    Stopwatch record_watch(options_.clock);
    RecordContext context{options_.db_job_id, options_.tuner_version, std::nullopt,
                          options_.clock->Now()};
    if (!r.worker_id().empty()) context.device = measurer_->Describe(r.worker_id());
    auto ids = log_->Insert({RecordFromResult(task_, indices[i], r, context)});
    result_.time.record_s += record_watch.Seconds();
    return ids.status();
  };
}

std::vector<int64_t> TuningSession::TakeSeeds(int n) {
  std::vector<int64_t> seeds;
  if (seeds_taken_) return seeds;
  seeds_taken_ = true;
  std::set<int64_t> taken;
  for (int64_t index : options_.seed_configs) {
    if (static_cast<int>(seeds.size()) >= n) break;
    if (index < 0 || index >= task_.space->size() || seen_.count(index) > 0) continue;
    if (taken.insert(index).second) seeds.push_back(index);
  }
  return seeds;
}

bool TuningSession::done() const {
  return result_.trials >= options_.trials || result_.exhausted ||
         (options_.early_stopping > 0 && since_improvement_ >= options_.early_stopping &&
          result_.best_index >= 0);
}

absl::Status TuningSession::Step() {
  if (done()) return absl::OkStatus();
  int n = std::min(options_.batch_size, options_.trials - result_.trials);
  Stopwatch search_watch(options_.clock);
  // The first round measures the seed configs, if any; the strategy learns them as any other.
  std::vector<int64_t> seeds = TakeSeeds(n);
  if (!seeds.empty()) result_.seeded = static_cast<int>(seeds.size());
  absl::StatusOr<std::vector<int64_t>> batch =
      seeds.empty() ? strategy_->NextBatch(n) : absl::StatusOr<std::vector<int64_t>>(seeds);
  result_.time.search_s += search_watch.Seconds();
  if (!batch.ok()) return batch.status();
  if (batch->empty()) {
    result_.exhausted = true;
    return absl::OkStatus();
  }
  Stopwatch build_watch(options_.clock);
  std::vector<BuildResult> builds = options_.build_batch
                                        ? options_.build_batch(*batch)
                                        : BuildAll(task_, *batch, options_.build_threads);
  result_.time.build_s += build_watch.Seconds();
  Stopwatch measure_watch(options_.clock);
  // Each result goes into the log as it arrives, before the farm forgets it.
  const double record_before = result_.time.record_s;
  MeasuredBatch measured = measurer_->Measure(builds, reference_, {}, RecordInto(*batch));
  result_.time.measure_s += measure_watch.Seconds() - (result_.time.record_s - record_before);

  // Whatever arrived is learnt from, even when the farm failed part-way.
  std::vector<MeasuredPoint> points;
  std::vector<std::string> workers;
  for (size_t i = 0; i < batch->size(); ++i) {
    if (!measured.arrived[i]) continue;
    const v1::MeasureResult& r = measured.results[i];
    workers.push_back(r.worker_id());
    points.push_back(MeasuredPoint{(*batch)[i], ResultCost(r)});
  }
  for (size_t i = 0; i < points.size(); ++i) Observe(points[i].index, points[i].cost_s, workers[i]);
  result_.measured += static_cast<int>(points.size());
  if (!measured.status.ok()) return measured.status;
  Stopwatch update_watch(options_.clock);
  absl::Status u = strategy_->Update(points);
  result_.time.search_s += update_watch.Seconds();
  if (options_.early_stopping > 0 && since_improvement_ >= options_.early_stopping &&
      result_.best_index >= 0) {
    result_.early_stopped = true;
  }
  return u;
}

TuneProgress TuningSession::Progress() const {
  TuneProgress p;
  p.trials_done = result_.trials;
  p.trials_total = options_.trials;
  p.errors = result_.errors;
  p.best_cost_s = result_.best_cost_s;
  p.best_gflops = Gflops(result_.best_cost_s);
  if (result_.best_index >= 0) {
    auto c = task_.space->Get(result_.best_index);
    if (c.ok()) p.best_config = c->ToJson();
  }
  p.elapsed_s = absl::ToDoubleSeconds(options_.clock->Now() - start_);
  int run_trials = std::max(1, result_.measured);
  p.eta_s = p.elapsed_s / run_trials * std::max(0, options_.trials - result_.trials);
  p.time = result_.time;
  p.time.total_s = p.elapsed_s;
  return p;
}

absl::StatusOr<TuneResult> TuningSession::Finish(bool cancelled) {
  result_.cancelled = cancelled;
  // Every config measured so far, each with its costs in order: ranked by the log's rule.
  auto costs_by_config = [this] {
    std::map<int64_t, std::vector<double>> costs;
    for (const auto& [index, seen] : seen_) costs.emplace(index, seen.costs_s);
    return costs;
  };
  // Re-measure the top-k in rounds; the winner is then ranked by the re-measurements.
  if (options_.top_k > 0 && !cancelled && result_.best_index >= 0) {
    std::vector<db::ConfigScore> ranked;
    for (const auto& [index, costs_s] : costs_by_config()) {
      ranked.push_back(db::ScoreConfig(index, costs_s));
    }
    db::SortByRank(ranked);
    std::vector<int64_t> top;
    for (const db::ConfigScore& score : ranked) {
      if (static_cast<int>(top.size()) >= options_.top_k || !std::isfinite(score.rank_s)) break;
      top.push_back(score.index);
      RemeasuredConfig rc;
      rc.index = score.index;
      auto cfg = task_.space->Get(score.index);
      rc.config = cfg.ok() ? cfg->ToJson() : "";
      rc.first_cost_s = score.cost_s;
      rc.first_worker = seen_.at(score.index).worker;
      result_.top_k.push_back(rc);
    }
    Stopwatch build_watch(options_.clock);
    std::vector<BuildResult> builds = options_.build_batch
                                          ? options_.build_batch(top)
                                          : BuildAll(task_, top, options_.build_threads);
    result_.time.build_s += build_watch.Seconds();
    // Every round measures all of them, one after another, so a change in the machine's speed
    // between rounds hits each config alike. Each round asks for another device than the last
    // one when the farm has a second live device: a config's lead must hold across devices.
    std::vector<std::string> avoid;
    for (const RemeasuredConfig& rc : result_.top_k) avoid.push_back(rc.first_worker);
    for (int round = 0; round < std::max(1, options_.top_k_rounds); ++round) {
      Stopwatch measure_watch(options_.clock);
      const double record_before = result_.time.record_s;
      MeasuredBatch again = measurer_->Measure(builds, reference_, avoid, RecordInto(top));
      result_.time.measure_s += measure_watch.Seconds() - (result_.time.record_s - record_before);
      if (!again.status.ok()) return again.status;  // what arrived is in the log already
      for (size_t i = 0; i < top.size(); ++i) {
        RemeasuredConfig& rc = result_.top_k[i];
        const double cost = ResultCost(again.results[i]);
        rc.remeasured_costs_s.push_back(cost);
        seen_.at(rc.index).costs_s.push_back(cost);
        if (round == 0) rc.second_worker = again.results[i].worker_id();
        if (!again.results[i].worker_id().empty()) avoid[i] = again.results[i].worker_id();
      }
    }
    for (RemeasuredConfig& rc : result_.top_k) {
      rc.remeasured_cost_s = db::MedianFiniteCost(rc.remeasured_costs_s);
    }
  }
  // The winner as the log ranks the same measurements (a resumed session's history included),
  // so `best` and `export` answer it.
  if (result_.best_index >= 0) {
    if (const Winner w = PickWinner(costs_by_config()); w.index >= 0) {
      result_.best_index = w.index;
      result_.best_cost_s = w.cost_s;
    }
  }
  if (result_.best_index >= 0) {
    auto c = task_.space->Get(result_.best_index);
    if (c.ok()) result_.best_config = c->ToJson();
  }
  result_.best_gflops = Gflops(result_.best_cost_s);
  result_.time.total_s = absl::ToDoubleSeconds(options_.clock->Now() - start_);
  return result_;
}

absl::StatusOr<TuneResult> Tune(const TuneTask& task, SearchStrategy& strategy, Measurer& measurer,
                                db::TuningLog* log, const TuneOptions& options,
                                const std::function<void(const TuneProgress&)>& on_progress,
                                const std::atomic<bool>* cancel) {
  auto session = TuningSession::Start(task, &strategy, &measurer, log, options);
  if (!session.ok()) return session.status();
  if (on_progress) on_progress((*session)->Progress());
  bool cancelled = false;
  while (!(*session)->done()) {
    if (cancel != nullptr && cancel->load()) {
      cancelled = true;
      break;
    }
    if (absl::Status s = (*session)->Step(); !s.ok()) return s;
    if (on_progress) on_progress((*session)->Progress());
  }
  auto result = (*session)->Finish(cancelled);
  if (result.ok() && on_progress) on_progress((*session)->Progress());
  return result;
}

}  // namespace tunefarm::tuner
