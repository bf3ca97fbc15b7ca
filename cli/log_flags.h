// Flags and helpers shared by the tuning-log commands (best, history, import-log, export-log,
// and export): `--db` in log_flags.cc, the record filters in log_filter_flags.cc. A command's
// row in main.cc lists the files whose flags it accepts.
#ifndef TUNEFARM_CLI_LOG_FLAGS_H_
#define TUNEFARM_CLI_LOG_FLAGS_H_

#include <memory>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "db/record.h"
#include "db/tuning_log.h"

ABSL_DECLARE_FLAG(std::string, db);
ABSL_DECLARE_FLAG(std::string, workload);
ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(std::string, device_key);

namespace tunefarm::cli {

// Opens the log named by --db.
// InvalidArgument: --db not given. Others as db::TuningLog::Open.
absl::StatusOr<std::unique_ptr<db::TuningLog>> OpenLogFromFlags(bool read_only);

// A parsed --workload: "TEMPLATE" (every shape of the template) or "TEMPLATE:ARGS" with ARGS a
// JSON array, e.g. `dense:[1024,1024,1024,"float32"]`.
struct WorkloadSpec {
  std::string template_name;
  // Canonical args; empty for "every shape".
  std::string args;
};

// InvalidArgument: empty, or ARGS is not a JSON array.
absl::StatusOr<WorkloadSpec> ParseWorkloadSpec(const std::string& text);

// The record filter of --workload, --target (normalized as the log stores it) and --device_key
// (log_filter_flags.cc).
// InvalidArgument: a malformed --workload.
absl::StatusOr<db::RecordFilter> RecordFilterFromFlags();

// "2023-11-14 22:13" (UTC) for a Unix time in seconds.
std::string FormatUnixTime(double seconds);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_LOG_FLAGS_H_
