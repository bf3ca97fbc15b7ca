// The job service's dashboard: its farm (the embedded local farm or a remote tracker), its
// jobs with their tuning curves, and the best config of each workload in its tuning log.
#ifndef TUNEFARM_CLI_DASHBOARD_SERVICE_SOURCE_H_
#define TUNEFARM_CLI_DASHBOARD_SERVICE_SOURCE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "cli/dashboard/dashboard_source.h"
#include "db/tuning_curve.h"
#include "db/tuning_log.h"
#include "farm/farm_setup.h"
#include "tuner/service/job_manager.h"

namespace tunefarm::cli {

struct ServiceSourceOptions {
  // Jobs listed by Jobs(), newest first; older ones stay reachable by id.
  int max_jobs = 20;
  // Workloads in Best(), most recently measured first.
  int max_workloads = 50;
  // Points per curve; longer curves are thinned (every improvement is kept).
  int max_curve_points = 300;
  // The serving host's one-core FMA peak (0: peak fractions are left 0) and CPU model.
  double core_peak_gflops = 0;
  std::string host_cpu_model;
};

class ServiceSource final : public DashboardSource {
 public:
  // All must outlive the source.
  ServiceSource(const tuner::JobManager* manager, const db::TuningLog* log, tunefarm::Farm* farm,
                ServiceSourceOptions options)
      : manager_(manager), log_(log), farm_(farm), options_(std::move(options)) {}

  v1::DashboardInfo Info() const override;
  absl::StatusOr<v1::FarmSummary> Farm() const override;
  // Each job with its first task's curve (Job() has them all).
  absl::StatusOr<v1::JobViews> Jobs() const override;
  absl::StatusOr<v1::JobView> Job(const std::string& job_id) const override;
  absl::StatusOr<v1::BestTable> Best() const override;
  // The farm's metrics (with the dispatch histogram and results by class when the farm is the
  // embedded one), jobs by state, and the tuning log's write latency.
  void WriteMetrics(PrometheusText& out) const override;

 private:
  // `status` with the curves of its tasks, from the log's history of the job. A finished job's
  // history no longer changes: its view is read once and kept (the page asks every 2 s).
  absl::StatusOr<v1::JobView> ViewOf(const v1::JobStatus& status) const;
  // The view read from the log, uncached.
  absl::StatusOr<v1::JobView> ReadView(const v1::JobStatus& status) const;

  const tuner::JobManager* manager_;
  const db::TuningLog* log_;
  tunefarm::Farm* farm_;
  ServiceSourceOptions options_;
  mutable absl::Mutex mu_;
  // Views of finished jobs, by job id (bounded: cleared past 4 × max_jobs entries).
  mutable absl::flat_hash_map<std::string, v1::JobView> finished_ ABSL_GUARDED_BY(mu_);
};

// `curve` thinned to at most `max_points`: every point where the best improved, the last point,
// and evenly spaced others. Exposed for tests.
std::vector<db::CurvePoint> ThinCurve(const std::vector<db::CurvePoint>& curve, int max_points);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_DASHBOARD_SERVICE_SOURCE_H_
