// `tunefarm history`: the tuning curve of a job (best-so-far GFLOP/s per trial), as text and
// optionally as an SVG picture.
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/log_flags.h"
#include "cli/subcommand.h"
#include "db/tuning_curve.h"
#include "db/tuning_log.h"
#include "report/tuning_curve_svg.h"

ABSL_FLAG(int64_t, job, 0, "Job id whose tuning curve to show.");
ABSL_FLAG(std::string, plot, "", "Write the tuning curve as an SVG picture to this file.");

namespace tunefarm::cli {

int RunHistory(const std::vector<std::string>& positional) {
  if (!positional.empty()) {
    absl::FPrintF(stderr, "tunefarm history: takes no arguments (use --job)\n");
    return kExitUsage;
  }
  int64_t job = absl::GetFlag(FLAGS_job);
  if (job <= 0) {
    absl::FPrintF(stderr, "tunefarm history: --job ID is required\n");
    return kExitUsage;
  }
  absl::StatusOr<std::unique_ptr<db::TuningLog>> log = OpenLogFromFlags(/*read_only=*/true);
  if (!log.ok()) {
    absl::FPrintF(stderr, "tunefarm history: %s\n", log.status().ToString());
    return absl::IsInvalidArgument(log.status()) ? kExitUsage : kExitFailure;
  }
  absl::StatusOr<std::vector<db::Record>> history = (*log)->JobHistory(job);
  if (!history.ok()) {
    absl::FPrintF(stderr, "tunefarm history: %s\n", history.status().ToString());
    return kExitFailure;
  }
  if (history->empty()) {
    absl::FPrintF(stderr, "tunefarm history: job %d has no records in %s\n", job,
                  absl::GetFlag(FLAGS_db));
    return kExitFailure;
  }
  // Imported logs may reference a job without a jobs row: show what we have.
  absl::StatusOr<db::JobInfo> info = (*log)->GetJob(job);
  std::string name = info.ok() && !info->name.empty() ? absl::StrCat(" '", info->name, "'") : "";
  std::vector<db::CurvePoint> curve = db::BestSoFarCurve(*history);
  int64_t valid = 0;
  for (const db::Record& r : *history) valid += r.valid() ? 1 : 0;
  absl::PrintF("job %d%s: %d trials, %d valid\n", job, name, history->size(), valid);
  absl::PrintF("  %6s  %9s  %s\n", "trial", "GFLOP/s", "new best config");
  double shown = 0;
  for (const db::CurvePoint& p : curve) {
    if (p.best_gflops <= shown) continue;
    shown = p.best_gflops;
    const db::Record& r = (*history)[p.best_index];
    absl::PrintF("  %6d  %9.1f  #%d %s\n", p.trial, p.best_gflops, r.config_index, r.config_json);
  }
  if (shown == 0) absl::PrintF("  (no valid trial with a known FLOP count)\n");
  if (std::string plot = absl::GetFlag(FLAGS_plot); !plot.empty()) {
    const db::Record& first = history->front();
    std::string title = absl::StrCat("job ", job, name, ": ", first.workload.CanonicalString(),
                                     " on ", first.target);
    std::ofstream out(plot);
    out << report::TuningCurveSvg(curve, title);
    out.close();
    if (!out) {
      absl::FPrintF(stderr, "tunefarm history: cannot write %s\n", plot);
      return kExitFailure;
    }
    absl::PrintF("wrote %s\n", plot);
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
