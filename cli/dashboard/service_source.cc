#include "cli/dashboard/service_source.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/version.h"
#include "db/tuning_curve.h"
#include "farm/local_farm.h"
#include "tracker/tracker_server.h"

namespace tunefarm::cli {
namespace {

// The sequence number of "job-N" (job ids the manager hands out), for newest-first order.
int64_t JobSeq(const std::string& id) {
  int64_t seq = 0;
  absl::string_view rest = id;
  return absl::ConsumePrefix(&rest, "job-") && absl::SimpleAtoi(rest, &seq) ? seq : 0;
}

void AddPoints(const std::vector<db::CurvePoint>& curve, v1::TaskCurve* out) {
  for (const db::CurvePoint& p : curve) {
    v1::CurvePoint* point = out->add_points();
    point->set_trial(p.trial);
    point->set_gflops(p.gflops);
    point->set_best_gflops(p.best_gflops);
  }
}

}  // namespace

std::vector<db::CurvePoint> ThinCurve(const std::vector<db::CurvePoint>& curve, int max_points) {
  if (static_cast<int>(curve.size()) <= max_points || max_points < 2) return curve;
  std::vector<db::CurvePoint> out;
  const double stride = static_cast<double>(curve.size()) / max_points;
  double next = 0;
  double best = 0;
  for (size_t i = 0; i < curve.size(); ++i) {
    const bool improved = curve[i].best_gflops > best;
    best = std::max(best, curve[i].best_gflops);
    if (improved || i + 1 == curve.size() || static_cast<double>(i) >= next) {
      out.push_back(curve[i]);
      if (static_cast<double>(i) >= next) next += stride;
    }
  }
  return out;
}

v1::DashboardInfo ServiceSource::Info() const {
  v1::DashboardInfo info;
  info.set_role("job service");
  info.set_version(kTunefarmVersion);
  info.set_has_jobs(true);
  info.set_core_peak_gflops(options_.core_peak_gflops);
  info.set_host_cpu_model(options_.host_cpu_model);
  return info;
}

absl::StatusOr<v1::FarmSummary> ServiceSource::Farm() const { return farm_->client->Summary(); }

absl::StatusOr<v1::JobView> ServiceSource::ViewOf(const v1::JobStatus& status) const {
  const bool finished = tuner::JobManager::IsTerminal(status.state());
  if (finished) {
    absl::MutexLock lock(&mu_);
    auto it = finished_.find(status.job_id());
    if (it != finished_.end() && it->second.status().version() == status.version()) {
      return it->second;
    }
  }
  absl::StatusOr<v1::JobView> view = ReadView(status);
  if (finished && view.ok()) {
    absl::MutexLock lock(&mu_);
    if (finished_.size() >= static_cast<size_t>(4 * std::max(options_.max_jobs, 1))) {
      finished_.clear();
    }
    finished_[status.job_id()] = *view;
  }
  return view;
}

absl::StatusOr<v1::JobView> ServiceSource::ReadView(const v1::JobStatus& status) const {
  v1::JobView view;
  *view.mutable_status() = status;
  if (log_ == nullptr || status.log_job_id() <= 0) return view;
  absl::StatusOr<std::vector<db::Record>> history = log_->JobHistory(status.log_job_id());
  if (!history.ok()) return history.status();
  // One curve per task, in the order of the job's tasks (a workload the status does not name,
  // e.g. of a job recovered from an older store, goes after them).
  std::map<std::pair<std::string, std::string>, std::vector<db::Record>> by_workload;
  for (db::Record& r : *history) {
    by_workload[{r.workload.template_name, r.workload.args}].push_back(std::move(r));
  }
  auto add = [&](const std::string& name, const std::string& args) {
    auto it = by_workload.find({name, args});
    if (it == by_workload.end()) return;
    v1::TaskCurve* curve = view.add_curves();
    curve->set_workload_template(name);
    curve->set_workload_args(args);
    AddPoints(ThinCurve(db::BestSoFarCurve(it->second), options_.max_curve_points), curve);
    by_workload.erase(it);
  };
  for (const v1::TaskStatus& task : status.tasks()) {
    add(task.workload_template(), task.workload_args());
  }
  while (!by_workload.empty()) {
    auto first = by_workload.begin()->first;
    add(first.first, first.second);
  }
  return view;
}

absl::StatusOr<v1::JobViews> ServiceSource::Jobs() const {
  std::vector<v1::JobStatus> jobs = manager_->List();
  std::sort(jobs.begin(), jobs.end(), [](const v1::JobStatus& a, const v1::JobStatus& b) {
    return JobSeq(a.job_id()) > JobSeq(b.job_id());
  });
  if (static_cast<int>(jobs.size()) > options_.max_jobs) jobs.resize(options_.max_jobs);
  v1::JobViews views;
  for (const v1::JobStatus& status : jobs) {
    absl::StatusOr<v1::JobView> view = ViewOf(status);
    if (!view.ok()) return view.status();
    // The list draws each job's first task's curve; the others are on the job's own page.
    while (view->curves_size() > 1) view->mutable_curves()->RemoveLast();
    *views.add_jobs() = *std::move(view);
  }
  return views;
}

absl::StatusOr<v1::JobView> ServiceSource::Job(const std::string& job_id) const {
  absl::StatusOr<v1::JobStatus> status = manager_->Get(job_id);
  if (!status.ok()) return status.status();
  return ViewOf(*status);
}

absl::StatusOr<v1::BestTable> ServiceSource::Best() const {
  if (log_ == nullptr) return absl::UnimplementedError("this service keeps no tuning log");
  absl::StatusOr<std::vector<db::WorkloadStats>> stats = log_->Stats();
  if (!stats.ok()) return stats.status();
  std::sort(stats->begin(), stats->end(),
            [](const db::WorkloadStats& a, const db::WorkloadStats& b) {
              return a.last_timestamp > b.last_timestamp;
            });
  v1::BestTable table;
  for (const db::WorkloadStats& s : *stats) {
    if (table.rows_size() >= options_.max_workloads) break;
    if (s.valid_records == 0) continue;
    db::BestQuery query;
    query.workload = s.workload;
    query.target = s.target;
    query.k = 1;
    absl::StatusOr<std::vector<db::BestRecord>> best = log_->BestK(query);
    if (!best.ok()) {
      if (absl::IsNotFound(best.status())) continue;
      return best.status();
    }
    if (best->empty()) continue;
    const db::BestRecord& b = best->front();
    v1::BestRow* row = table.add_rows();
    row->set_workload_template(s.workload.template_name);
    row->set_workload_args(s.workload.args);
    row->set_target(s.target);
    row->set_device_key(b.record.device_key);
    row->set_cpu_model(b.record.device.cpu_model);
    row->set_emulated(b.record.device.emulated);
    row->set_gflops(b.gflops);
    row->set_mean_cost_s(b.cost_s);
    if (options_.core_peak_gflops > 0 && !options_.host_cpu_model.empty() &&
        absl::StartsWith(s.target, "llvm") &&
        b.record.device.cpu_model == options_.host_cpu_model) {
      row->set_peak_fraction(b.gflops / options_.core_peak_gflops);
    }
    row->set_config_json(b.record.config_json);
    row->set_records(s.records);
    row->set_valid_records(s.valid_records);
  }
  return table;
}

void ServiceSource::WriteMetrics(PrometheusText& out) const {
  absl::StatusOr<v1::FarmSummary> farm = Farm();
  const TrackerCore* core = farm_->local != nullptr ? &farm_->local->tracker().core() : nullptr;
  out.Family("tunefarm_farm_up", "gauge", "1 when the farm's tracker answered this scrape.");
  out.Sample("tunefarm_farm_up", {}, farm.ok() ? 1 : 0);
  if (farm.ok()) {
    WriteFarmMetrics(*farm, core != nullptr ? &core->dispatch_latency() : nullptr,
                     core != nullptr ? &core->results_by_class() : nullptr, out);
  }
  std::map<std::string, int> jobs;
  for (int s = v1::JobState_MIN; s <= v1::JobState_MAX; ++s) {
    if (s == v1::JOB_STATE_UNSPECIFIED) continue;
    jobs[absl::AsciiStrToLower(v1::JobState_Name(s).substr(std::string("JOB_").size()))] = 0;
  }
  for (const v1::JobStatus& job : manager_->List()) {
    ++jobs[absl::AsciiStrToLower(
        v1::JobState_Name(job.state()).substr(std::string("JOB_").size()))];
  }
  out.Family("tunefarm_jobs", "gauge", "Jobs the service holds, by state.");
  for (const auto& [state, n] : jobs) out.Sample("tunefarm_jobs", {{"state", state}}, n);
  if (log_ != nullptr) {
    out.Histogram("tunefarm_tuning_log_write_seconds",
                  "Time of each write of measurements to the tuning log (one transaction).",
                  log_->insert_latency().Read());
  }
}

}  // namespace tunefarm::cli
