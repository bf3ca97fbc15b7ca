#include "cli/dashboard/dashboard_source.h"

#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tunefarm::cli {

absl::StatusOr<v1::JobViews> DashboardSource::Jobs() const {
  return absl::UnimplementedError("this service runs no jobs (ask the job service)");
}

absl::StatusOr<v1::JobView> DashboardSource::Job(const std::string& job_id) const {
  return absl::UnimplementedError("this service runs no jobs (ask the job service)");
}

absl::StatusOr<v1::BestTable> DashboardSource::Best() const {
  return absl::UnimplementedError("this service has no tuning log (ask the job service)");
}

std::string EnumLabel(const std::string& name, absl::string_view prefix, int number) {
  absl::string_view rest = name;
  if (name.empty() || !absl::ConsumePrefix(&rest, prefix) || rest.empty()) {
    return absl::StrCat("unknown_", number);
  }
  return absl::AsciiStrToLower(rest);
}

void WriteFarmMetrics(const v1::FarmSummary& farm, const Histogram* dispatch_latency,
                      const LabeledCounter* results_by_class, PrometheusText& out) {
  out.Family("tunefarm_queue_depth", "gauge",
             "Measurement requests per device key, waiting (queued) or on a device (leased).");
  for (const v1::QueueStatus& q : farm.queues()) {
    out.Sample("tunefarm_queue_depth", {{"device_key", q.device_key()}, {"state", "queued"}},
               q.queued());
    out.Sample("tunefarm_queue_depth", {{"device_key", q.device_key()}, {"state", "leased"}},
               q.leased());
  }
  // Every state of every key is written, zeros included, so a state that empties reads 0
  // instead of vanishing from the scrape.
  std::map<std::string, std::map<std::string, int>> workers;
  for (const v1::QueueStatus& q : farm.queues()) workers[q.device_key()];
  for (const v1::DeviceStatus& d : farm.device_status()) workers[d.device().key()];
  for (auto& [key, states] : workers) {
    for (const char* state : {"idle", "busy", "noisy", "lost"}) states[state] = 0;
  }
  for (const v1::DeviceStatus& d : farm.device_status()) {
    std::string state = EnumLabel(v1::DeviceState_Name(d.state()), "DEVICE_STATE_", d.state());
    ++workers[d.device().key()][state];
  }
  out.Family("tunefarm_workers", "gauge", "Registered workers per device key and state.");
  for (const auto& [key, states] : workers) {
    for (const auto& [state, n] : states) {
      out.Sample("tunefarm_workers", {{"device_key", key}, {"state", state}}, n);
    }
  }
  out.Family("tunefarm_results_per_second", "gauge",
             "Measurements finished per second over the last minute.");
  out.Sample("tunefarm_results_per_second", {}, farm.results_per_second());
  out.Family("tunefarm_draining", "gauge", "1 while the tracker drains (refuses new work).");
  out.Sample("tunefarm_draining", {}, farm.draining() ? 1 : 0);
  if (dispatch_latency != nullptr) {
    out.Histogram("tunefarm_dispatch_latency_seconds",
                  "Time a measurement request waited in its queue before a device leased it.",
                  dispatch_latency->Read());
  }
  if (results_by_class != nullptr) {
    out.Counter("tunefarm_measurements",
                "Measurements finished, by error class (error_none: timed successfully).",
                "error_class", *results_by_class);
  }
}

}  // namespace tunefarm::cli
