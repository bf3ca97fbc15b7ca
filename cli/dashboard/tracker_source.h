// The tracker's dashboard: its farm, from the core in this process.
#ifndef TUNEFARM_CLI_DASHBOARD_TRACKER_SOURCE_H_
#define TUNEFARM_CLI_DASHBOARD_TRACKER_SOURCE_H_

#include "cli/dashboard/dashboard_source.h"
#include "tracker/tracker_core.h"

namespace tunefarm::cli {

class TrackerSource final : public DashboardSource {
 public:
  // `core` must outlive the source.
  explicit TrackerSource(const TrackerCore* core) : core_(core) {}

  v1::DashboardInfo Info() const override;
  absl::StatusOr<v1::FarmSummary> Farm() const override { return core_->Summary(); }
  void WriteMetrics(PrometheusText& out) const override;

 private:
  const TrackerCore* core_;
};

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_DASHBOARD_TRACKER_SOURCE_H_
