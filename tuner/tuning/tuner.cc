#include "tuner/tuning/tuner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tunefarm::tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

db::ErrorClass ToDbError(v1::ErrorClass e) {
  switch (e) {
    case v1::ERROR_NONE:
      return db::ErrorClass::kOk;
    case v1::BUILD_ERROR:
      return db::ErrorClass::kBuildError;
    case v1::LOAD_ERROR:
      return db::ErrorClass::kLoadError;
    case v1::RUNTIME_ERROR:
    case v1::OUT_OF_MEMORY:
      return db::ErrorClass::kRuntimeError;
    case v1::WRONG_ANSWER:
      return db::ErrorClass::kWrongAnswer;
    case v1::TIMEOUT:
      return db::ErrorClass::kRunTimeout;
    case v1::DEVICE_LOST:
      return db::ErrorClass::kDeviceLost;
    case v1::INVALID_REQUEST:
      return db::ErrorClass::kInvalidConfig;
    default:
      return db::ErrorClass::kUnknown;
  }
}

db::Record MakeRecord(const TuneTask& task, int64_t index, const v1::MeasureResult& r,
                      const TuneOptions& options, Measurer& measurer) {
  db::Record rec;
  rec.workload = task.DbWorkload();
  rec.target = task.target.str;
  rec.device_key = task.device_key;
  if (!r.worker_id().empty()) {
    if (auto d = measurer.Describe(r.worker_id())) {
      rec.device.cpu_model = d->cpu_model();
      rec.device.gpu_model = d->gpu_name();
      rec.device.cores = d->cores();
    }
  }
  rec.device.compiler_version = "LLVM 16";
  rec.job_id = options.db_job_id;
  rec.config_index = index;
  auto cfg = task.space->Get(index);
  rec.config_json = cfg.ok() ? cfg->ToJson() : "{}";
  rec.error = ToDbError(r.error());
  if (rec.error == db::ErrorClass::kOk) {
    rec.costs.assign(r.costs_s().begin(), r.costs_s().end());
    bool positive = std::any_of(rec.costs.begin(), rec.costs.end(),
                                [](double c) { return c > 0 && std::isfinite(c); });
    if (!positive) {
      rec.error = db::ErrorClass::kUnknown;
      rec.error_message = "device reported no positive cost";
      rec.costs.clear();
    }
  } else {
    rec.error_message = r.message().empty() ? "failed" : r.message();
  }
  rec.tuner_version = options.tuner_version;
  rec.timestamp = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
  rec.request_id = r.request_id();
  return rec;
}

double Median(std::vector<double> v) {
  if (v.empty()) return kInf;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

double ResultCost(const v1::MeasureResult& r) {
  if (r.error() != v1::ERROR_NONE || r.costs_s_size() == 0) return kInf;
  if (r.has_distribution() && r.distribution().median() > 0) return r.distribution().median();
  return Median(std::vector<double>(r.costs_s().begin(), r.costs_s().end()));
}

double RecordCost(const db::Record& r) { return r.valid() ? Median(r.costs) : kInf; }

TuningSession::TuningSession(const TuneTask& task, SearchStrategy* strategy, Measurer* measurer,
                             db::TuningLog* log, const TuneOptions& options)
    : task_(task),
      strategy_(strategy),
      measurer_(measurer),
      log_(log),
      options_(options),
      start_(std::chrono::steady_clock::now()) {
  result_.best_cost_s = kInf;
}

double TuningSession::Gflops(double cost) const {
  return std::isfinite(cost) && cost > 0 ? task_.workload.flop / cost * 1e-9 : 0.0;
}

void TuningSession::Observe(int64_t index, double cost, const std::string& worker) {
  auto [it, inserted] = seen_.emplace(index, Seen{cost, worker});
  if (!inserted && cost < it->second.cost_s) it->second = Seen{cost, worker};
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
  Stopwatch ref_watch;
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
      double cost = RecordCost(r);
      history.push_back(MeasuredPoint{r.config_index, cost});
      s->Observe(r.config_index, cost);
      return absl::OkStatus();
    });
    if (!st.ok()) return st;
    Stopwatch w;
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
    Stopwatch record_watch;
    auto ids = log_->Insert({MakeRecord(task_, indices[i], r, options_, *measurer_)});
    result_.time.record_s += record_watch.Seconds();
    return ids.status();
  };
}

bool TuningSession::done() const {
  return result_.trials >= options_.trials || result_.exhausted ||
         (options_.early_stopping > 0 && since_improvement_ >= options_.early_stopping &&
          result_.best_index >= 0);
}

absl::Status TuningSession::Step() {
  if (done()) return absl::OkStatus();
  int n = std::min(options_.batch_size, options_.trials - result_.trials);
  Stopwatch search_watch;
  auto batch = strategy_->NextBatch(n);
  result_.time.search_s += search_watch.Seconds();
  if (!batch.ok()) return batch.status();
  if (batch->empty()) {
    result_.exhausted = true;
    return absl::OkStatus();
  }
  Stopwatch build_watch;
  std::vector<BuildResult> builds = BuildAll(task_, *batch, options_.build_threads);
  result_.time.build_s += build_watch.Seconds();
  Stopwatch measure_watch;
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
  Stopwatch update_watch;
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
  p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  int run_trials = std::max(1, result_.measured);
  p.eta_s = p.elapsed_s / run_trials * std::max(0, options_.trials - result_.trials);
  return p;
}

absl::StatusOr<TuneResult> TuningSession::Finish(bool cancelled) {
  result_.cancelled = cancelled;
  // Re-measure the top-k and pick the winner beyond noise.
  if (options_.top_k > 0 && !cancelled && result_.best_index >= 0) {
    std::vector<std::pair<double, int64_t>> ranked;
    for (const auto& [index, seen] : seen_) {
      if (std::isfinite(seen.cost_s)) ranked.emplace_back(seen.cost_s, index);
    }
    std::sort(ranked.begin(), ranked.end());
    if (static_cast<int>(ranked.size()) > options_.top_k) ranked.resize(options_.top_k);
    std::vector<int64_t> top;
    std::vector<std::string> first_workers;
    for (const auto& [cost, index] : ranked) {
      top.push_back(index);
      first_workers.push_back(seen_.at(index).worker);
    }
    Stopwatch build_watch;
    std::vector<BuildResult> builds = BuildAll(task_, top, options_.build_threads);
    result_.time.build_s += build_watch.Seconds();
    Stopwatch measure_watch;
    // On a second device when the farm has one: a config's lead must hold across devices.
    const double record_before = result_.time.record_s;
    MeasuredBatch again = measurer_->Measure(builds, reference_, first_workers, RecordInto(top));
    result_.time.measure_s += measure_watch.Seconds() - (result_.time.record_s - record_before);
    if (!again.status.ok()) return again.status;  // what arrived is in the log already
    for (size_t i = 0; i < top.size(); ++i) {
      RemeasuredConfig rc;
      rc.index = top[i];
      auto cfg = task_.space->Get(top[i]);
      rc.config = cfg.ok() ? cfg->ToJson() : "";
      rc.first_cost_s = ranked[i].first;
      rc.second_cost_s = ResultCost(again.results[i]);
      rc.first_worker = first_workers[i];
      rc.second_worker = again.results[i].worker_id();
      result_.top_k.push_back(rc);
    }
    // A config's score is the mean of its two measurements, so one lucky or one disturbed run
    // does not decide alone. Configs within the noise margin of the best score tie — the
    // margin is 2% or the disagreement between the best config's own two runs, whichever is
    // larger — and the smallest index wins a tie, so a job repeats its answer.
    auto score = [](const RemeasuredConfig& rc) {
      if (!std::isfinite(rc.second_cost_s)) return rc.first_cost_s * 2;  // Failed again: demote.
      return 0.5 * (rc.first_cost_s + rc.second_cost_s);
    };
    const RemeasuredConfig* best = nullptr;
    for (const RemeasuredConfig& rc : result_.top_k) {
      if (best == nullptr || score(rc) < score(*best)) best = &rc;
    }
    if (best != nullptr && std::isfinite(score(*best))) {
      double spread = std::isfinite(best->second_cost_s)
                          ? std::fabs(best->first_cost_s - best->second_cost_s) / score(*best)
                          : 0;
      double margin = std::max(0.02, spread);
      int64_t winner = best->index;
      double winner_score = score(*best);
      for (const RemeasuredConfig& rc : result_.top_k) {
        if (score(rc) <= score(*best) * (1 + margin) && rc.index < winner) {
          winner = rc.index;
          winner_score = score(rc);
        }
      }
      result_.best_index = winner;
      result_.best_cost_s = winner_score;
    }
  }
  if (result_.best_index >= 0) {
    auto c = task_.space->Get(result_.best_index);
    if (c.ok()) result_.best_config = c->ToJson();
  }
  result_.best_gflops = Gflops(result_.best_cost_s);
  result_.time.total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
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
