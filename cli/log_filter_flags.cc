// Record filters shared by best, export-log and export.
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "cli/log_flags.h"

ABSL_FLAG(std::string, workload, "",
          "TEMPLATE (all shapes) or TEMPLATE:ARGS, e.g. 'dense:[1024,1024,1024,\"float32\"]'.");
ABSL_FLAG(std::string, device_key, "", "Device key, e.g. cpu-znver4 (default: all devices).");
ABSL_DECLARE_FLAG(std::string, target);

namespace tunefarm::cli {

absl::StatusOr<db::RecordFilter> RecordFilterFromFlags() {
  db::RecordFilter filter;
  filter.target = absl::GetFlag(FLAGS_target);
  filter.device_key = absl::GetFlag(FLAGS_device_key);
  if (std::string w = absl::GetFlag(FLAGS_workload); !w.empty()) {
    absl::StatusOr<WorkloadSpec> spec = ParseWorkloadSpec(w);
    if (!spec.ok()) return spec.status();
    filter.template_name = spec->template_name;
    filter.args = spec->args;
  }
  return filter;
}

}  // namespace tunefarm::cli
