#include "cli/dashboard/tracker_source.h"

#include "common/version.h"

namespace tunefarm::cli {

v1::DashboardInfo TrackerSource::Info() const {
  v1::DashboardInfo info;
  info.set_role("tracker");
  info.set_version(kTunefarmVersion);
  return info;
}

void TrackerSource::WriteMetrics(PrometheusText& out) const {
  WriteFarmMetrics(core_->Summary(), &core_->dispatch_latency(), &core_->results_by_class(), out);
}

}  // namespace tunefarm::cli
