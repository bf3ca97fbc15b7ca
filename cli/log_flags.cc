#include "cli/log_flags.h"

#include <utility>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

ABSL_FLAG(std::string, db, "", "Tuning log file (SQLite), e.g. tuning.db.");

namespace tunefarm::cli {

absl::StatusOr<std::unique_ptr<db::TuningLog>> OpenLogFromFlags(bool read_only) {
  std::string path = absl::GetFlag(FLAGS_db);
  if (path.empty()) return absl::InvalidArgumentError("--db is required (e.g. --db tuning.db)");
  db::TuningLogOptions options;
  options.read_only = read_only;
  return db::TuningLog::Open(path, options);
}

absl::StatusOr<WorkloadSpec> ParseWorkloadSpec(const std::string& text) {
  // Template names may hold ':' themselves ("expr:NAME:HASH", "generated:dense"): the args
  // start at the first ':' followed (after optional spaces) by '['. '|' separates them too, as
  // `best` and `history` print a workload ("expr:conv_relu:d700...|[1,4,...]").
  size_t colon = text.find_first_of(":|");
  while (colon != std::string::npos) {
    const size_t next = text.find_first_not_of(' ', colon + 1);
    if (next != std::string::npos && text[next] == '[') break;
    colon = text.find_first_of(":|", colon + 1);
  }
  WorkloadSpec spec;
  spec.template_name = text.substr(0, colon);
  if (spec.template_name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--workload '", text, "': expected TEMPLATE or TEMPLATE:[ARGS...]"));
  }
  if (colon == std::string::npos) return spec;
  absl::StatusOr<db::Workload> w =
      db::Workload::Make(spec.template_name, text.substr(colon + 1), 0);
  if (!w.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--workload: ", w.status().message()));
  }
  spec.args = w->args;
  return spec;
}

std::string FormatUnixTime(double seconds) {
  return absl::FormatTime("%Y-%m-%d %H:%M",
                          absl::FromUnixMicros(static_cast<int64_t>(seconds * 1e6)),
                          absl::UTCTimeZone());
}

}  // namespace tunefarm::cli
