// Record filters shared by best, export-log and export.
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "cli/log_flags.h"
#include "compiler/codegen/target.h"

ABSL_FLAG(std::string, workload, "",
          "TEMPLATE (all shapes) or TEMPLATE:ARGS, e.g. 'dense:[1024,1024,1024,\"float32\"]'.");
ABSL_FLAG(std::string, device_key, "", "Device key, e.g. cpu-znver4 (default: all devices).");
ABSL_DECLARE_FLAG(std::string, target);

namespace tunefarm::cli {

absl::StatusOr<db::RecordFilter> RecordFilterFromFlags() {
  db::RecordFilter filter;
  // The log stores targets normalized ("llvm" as "llvm -mcpu=<host cpu>", an aarch64 target
  // with its CPU spelled out); a target this build cannot parse is looked up as given.
  filter.target = absl::GetFlag(FLAGS_target);
  if (!filter.target.empty()) {
    if (absl::StatusOr<codegen::Target> t = codegen::ParseTarget(filter.target); t.ok()) {
      filter.target = t->str;
    }
  }
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
