// The dashboard of `serve` and `tracker`, from their --http and --http_host flags.
#ifndef TUNEFARM_CLI_DASHBOARD_FLAGS_H_
#define TUNEFARM_CLI_DASHBOARD_FLAGS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "cli/dashboard/http_front.h"

namespace tunefarm::cli {

// Whether --http asks for a dashboard (a port >= 0).
bool DashboardRequested();

// Starts the dashboard on `source` (which must outlive it) at --http_host:--http and prints its
// address; null when --http is off. Unavailable: the port cannot be bound.
absl::StatusOr<std::unique_ptr<HttpFront>> StartDashboardFromFlags(const DashboardSource* source);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_DASHBOARD_FLAGS_H_
