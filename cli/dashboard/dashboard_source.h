// What the dashboard shows, whoever serves it: the tracker (its farm) or the job service (its
// farm, jobs and tuning log). The HTTP front (http_front.h) asks a source and prints the answer;
// each source reads its own service in-process, never over HTTP.
#ifndef TUNEFARM_CLI_DASHBOARD_DASHBOARD_SOURCE_H_
#define TUNEFARM_CLI_DASHBOARD_DASHBOARD_SOURCE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/metrics.h"
#include "proto/dashboard.pb.h"
#include "proto/tracker.pb.h"

namespace tunefarm::cli {

class DashboardSource {
 public:
  virtual ~DashboardSource() = default;

  // Which service this is, and whether it has jobs and a tuning log.
  virtual v1::DashboardInfo Info() const = 0;

  // Devices and queues. Unavailable: the farm's tracker cannot be reached.
  virtual absl::StatusOr<v1::FarmSummary> Farm() const = 0;

  // Jobs, newest first, with their curves. Unimplemented: this service runs no jobs.
  // Unavailable/Internal: the tuning log could not be read.
  virtual absl::StatusOr<v1::JobViews> Jobs() const;

  // One job. NotFound: unknown id; otherwise as Jobs.
  virtual absl::StatusOr<v1::JobView> Job(const std::string& job_id) const;

  // The best config of each recently measured workload. Unimplemented: no tuning log here;
  // Unavailable/Internal: the log could not be read.
  virtual absl::StatusOr<v1::BestTable> Best() const;

  // Appends this service's metric families (Prometheus text) to `out`.
  virtual void WriteMetrics(PrometheusText& out) const = 0;
};

// A label for an enum value: its name without `prefix`, lower-cased ("DEVICE_STATE_IDLE" ->
// "idle"), or "unknown_<number>" for a value this build does not know (a newer peer's).
std::string EnumLabel(const std::string& name, absl::string_view prefix, int number);

// The farm's gauges and counters, for every source: queue depth per device key and state,
// workers per device key and state, results per second; with the tracker's core at hand
// (`dispatch_latency`, `results_by_class` non-null) also the dispatch latency histogram and the
// results by error class.
void WriteFarmMetrics(const v1::FarmSummary& farm, const Histogram* dispatch_latency,
                      const LabeledCounter* results_by_class, PrometheusText& out);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_DASHBOARD_DASHBOARD_SOURCE_H_
