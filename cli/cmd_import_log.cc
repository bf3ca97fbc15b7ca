// `tunefarm import-log FILE`: loads an AutoTVM JSON-lines log into the tuning log. TVM's tasks
// become tunefarm workloads and their configs the templates' (db/autotvm_log.h); what has no
// tunefarm equivalent is kept as TVM wrote it and reported. Bad lines are counted and
// reported, never fatal.
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/log_flags.h"
#include "cli/subcommand.h"
#include "db/autotvm_log.h"
#include "tuner/tuning/autotvm_seed.h"

ABSL_FLAG(std::string, tvm_device_key, "autotvm",
          "Device key given to imported TVM records (TVM logs do not name a device).");

namespace tunefarm::cli {

int RunImportLog(const std::vector<std::string>& positional) {
  if (positional.size() != 1) {
    absl::FPrintF(stderr, "tunefarm import-log: expected one FILE argument\n");
    return kExitUsage;
  }
  std::ifstream in(positional[0]);
  if (!in) {
    absl::FPrintF(stderr, "tunefarm import-log: cannot read %s\n", positional[0]);
    return kExitFailure;
  }
  absl::StatusOr<std::unique_ptr<db::TuningLog>> log = OpenLogFromFlags(/*read_only=*/false);
  if (!log.ok()) {
    absl::FPrintF(stderr, "tunefarm import-log: %s\n", log.status().ToString());
    return absl::IsInvalidArgument(log.status()) ? kExitUsage : kExitFailure;
  }
  db::AutotvmImportOptions options;
  options.device_key = absl::GetFlag(FLAGS_tvm_device_key);
  options.resolve = tuner::MakeAutotvmConfigResolver();
  absl::StatusOr<db::AutotvmImportReport> report = db::ImportAutotvmLog(in, **log, options);
  if (!report.ok()) {
    absl::FPrintF(stderr, "tunefarm import-log: %s\n", report.status().ToString());
    return kExitFailure;
  }
  absl::PrintF("imported %d of %d lines from %s (%d malformed, %d unknown template)\n",
               report->imported, report->lines, positional[0], report->malformed,
               report->unknown_template);
  for (const std::string& p : report->problems) absl::PrintF("  %s\n", p);
  int64_t unlisted =
      report->malformed + report->unknown_template - static_cast<int64_t>(report->problems.size());
  if (unlisted > 0) absl::PrintF("  ... and %d more\n", unlisted);
  if (report->comments > 0) absl::PrintF("skipped %d '#' comment lines\n", report->comments);
  absl::PrintF(
      "workloads: %d converted to tunefarm templates (with FLOPs), %d kept in TVM's "
      "arguments\n",
      report->converted, report->raw_args);
  absl::PrintF(
      "configs: %d translated to the template's knobs (%d approximately), %d kept as "
      "TVM's (shown by best, not re-measurable)\n",
      report->translated, report->approximate, report->untranslated);
  for (const std::string& n : report->notes) absl::PrintF("  %s\n", n);
  int64_t unnoted = report->raw_args + report->untranslated + report->approximate -
                    static_cast<int64_t>(report->notes.size());
  if (unnoted > 0) absl::PrintF("  ... and %d more\n", unnoted);
  return kExitOk;
}

}  // namespace tunefarm::cli
