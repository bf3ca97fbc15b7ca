// `tunefarm export-log FILE`: writes records as an AutoTVM JSON-lines log ("-" for stdout).
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/log_flags.h"
#include "cli/subcommand.h"
#include "db/autotvm_log.h"

namespace tunefarm::cli {

int RunExportLog(const std::vector<std::string>& positional) {
  if (positional.size() != 1) {
    absl::FPrintF(stderr, "tunefarm export-log: expected one FILE argument (- for stdout)\n");
    return kExitUsage;
  }
  absl::StatusOr<db::RecordFilter> filter_or = RecordFilterFromFlags();
  if (!filter_or.ok()) {
    absl::FPrintF(stderr, "tunefarm export-log: %s\n", filter_or.status().message());
    return kExitUsage;
  }
  const db::RecordFilter& filter = *filter_or;
  absl::StatusOr<std::unique_ptr<db::TuningLog>> log = OpenLogFromFlags(/*read_only=*/true);
  if (!log.ok()) {
    absl::FPrintF(stderr, "tunefarm export-log: %s\n", log.status().ToString());
    return absl::IsInvalidArgument(log.status()) ? kExitUsage : kExitFailure;
  }
  const std::string& path = positional[0];
  std::ofstream file;
  if (path != "-") {
    file.open(path);
    if (!file) {
      absl::FPrintF(stderr, "tunefarm export-log: cannot write %s\n", path);
      return kExitFailure;
    }
  }
  std::ostream& out = path == "-" ? std::cout : file;
  int64_t skipped = 0;
  absl::StatusOr<int64_t> written = db::ExportAutotvmLog(**log, filter, out, &skipped);
  out.flush();
  if (!written.ok() || !out) {
    absl::FPrintF(stderr, "tunefarm export-log: %s\n",
                  written.ok() ? "write failed" : written.status().ToString());
    return kExitFailure;
  }
  absl::FPrintF(path == "-" ? stderr : stdout, "wrote %d records to %s", *written, path);
  if (skipped > 0)
    absl::FPrintF(path == "-" ? stderr : stdout, " (%d skipped: no AutoTVM task)", skipped);
  absl::FPrintF(path == "-" ? stderr : stdout, "\n");
  return kExitOk;
}

}  // namespace tunefarm::cli
