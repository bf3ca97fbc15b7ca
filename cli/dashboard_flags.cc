#include "cli/dashboard_flags.h"

#include <string>
#include <utility>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

ABSL_DECLARE_FLAG(int, http);
ABSL_DECLARE_FLAG(std::string, http_host);
ABSL_DECLARE_FLAG(std::string, http_allowed_hosts);

namespace tunefarm::cli {

bool DashboardRequested() { return absl::GetFlag(FLAGS_http) >= 0; }

absl::StatusOr<std::unique_ptr<HttpFront>> StartDashboardFromFlags(const DashboardSource* source) {
  if (!DashboardRequested()) return std::unique_ptr<HttpFront>();
  HttpFrontOptions options;
  options.host = absl::GetFlag(FLAGS_http_host);
  options.port = absl::GetFlag(FLAGS_http);
  options.allowed_hosts =
      absl::StrSplit(absl::GetFlag(FLAGS_http_allowed_hosts), ',', absl::SkipWhitespace());
  auto front = HttpFront::Start(source, options);
  if (!front.ok()) return front.status();
  absl::PrintF("dashboard on http://%s:%d/ (metrics: /metrics)\n", absl::GetFlag(FLAGS_http_host),
               (*front)->port());
  return front;
}

}  // namespace tunefarm::cli
