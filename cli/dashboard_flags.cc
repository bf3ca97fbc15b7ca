#include "cli/dashboard_flags.h"

#include <string>
#include <utility>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"

ABSL_DECLARE_FLAG(int, http);
ABSL_DECLARE_FLAG(std::string, http_host);

namespace tunefarm::cli {

bool DashboardRequested() { return absl::GetFlag(FLAGS_http) >= 0; }

absl::StatusOr<std::unique_ptr<HttpFront>> StartDashboardFromFlags(const DashboardSource* source) {
  if (!DashboardRequested()) return std::unique_ptr<HttpFront>();
  auto front = HttpFront::Start(
      source, HttpFrontOptions{absl::GetFlag(FLAGS_http_host), absl::GetFlag(FLAGS_http)});
  if (!front.ok()) return front.status();
  absl::PrintF("dashboard on http://%s:%d/ (metrics: /metrics)\n", absl::GetFlag(FLAGS_http_host),
               (*front)->port());
  return front;
}

}  // namespace tunefarm::cli
