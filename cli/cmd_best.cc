// `tunefarm best`: a table of the best recorded schedules per (workload, target).
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/log_flags.h"
#include "cli/subcommand.h"
#include "db/query_best.h"
#include "db/tuning_log.h"

ABSL_FLAG(int32_t, k, 5, "Number of best configs per workload and target.");
ABSL_FLAG(bool, nearest, true,
          "For a TEMPLATE:ARGS workload never tuned, show the nearest recorded shape instead.");

namespace tunefarm::cli {
namespace {

constexpr size_t kConfigWidth = 44;

std::string Shorten(const std::string& s, size_t width) {
  return s.size() <= width ? s : absl::StrCat(s.substr(0, width - 3), "...");
}

void PrintRows(const std::vector<db::BestRecord>& best) {
  for (size_t i = 0; i < best.size(); ++i) {
    const db::BestRecord& b = best[i];
    const db::Record& r = b.record;
    std::string gflops = b.gflops > 0 ? absl::StrFormat("%.1f", b.gflops) : "-";
    // "3 again": the median of 3 re-measurements; "1": a single measurement.
    std::string runs = b.confirmed ? absl::StrCat(b.runs, " again") : absl::StrCat(b.runs);
    absl::PrintF("  %2d  %9s  %10.4f  %-7s  %-*s  %-14s  %s\n", static_cast<int>(i) + 1, gflops,
                 b.cost_s * 1e3, runs, static_cast<int>(kConfigWidth),
                 Shorten(absl::StrCat("#", r.config_index, " ", r.config_json), kConfigWidth),
                 absl::StrCat(r.device_key, r.device.emulated ? " (emulated)" : "",
                              r.cold_cache ? " (cold)" : ""),
                 FormatUnixTime(r.timestamp));
  }
}

}  // namespace

int RunBest(const std::vector<std::string>& positional) {
  if (!positional.empty()) {
    absl::FPrintF(stderr, "tunefarm best: takes no arguments (use --workload)\n");
    return kExitUsage;
  }
  int k = absl::GetFlag(FLAGS_k);
  if (k < 1 || k > db::kMaxBestK) {
    absl::FPrintF(stderr, "tunefarm best: -k must be in [1, %d]\n", db::kMaxBestK);
    return kExitUsage;
  }
  absl::StatusOr<db::RecordFilter> filter_or = RecordFilterFromFlags();
  if (!filter_or.ok()) {
    absl::FPrintF(stderr, "tunefarm best: %s\n", filter_or.status().message());
    return kExitUsage;
  }
  const db::RecordFilter& filter = *filter_or;
  absl::StatusOr<std::unique_ptr<db::TuningLog>> log = OpenLogFromFlags(/*read_only=*/true);
  if (!log.ok()) {
    absl::FPrintF(stderr, "tunefarm best: %s\n", log.status().ToString());
    return absl::IsInvalidArgument(log.status()) ? kExitUsage : kExitFailure;
  }
  absl::StatusOr<std::vector<db::WorkloadStats>> stats = (*log)->Stats(filter);
  if (!stats.ok()) {
    absl::FPrintF(stderr, "tunefarm best: %s\n", stats.status().ToString());
    return kExitFailure;
  }
  int shown = 0;
  auto header = [](const std::string& workload, const std::string& target,
                   const std::string& note) {
    absl::PrintF("%s on %s  %s\n", workload, target, note);
    absl::PrintF("  %2s  %9s  %10s  %-7s  %-*s  %-14s  %s\n", "#", "GFLOP/s", "time (ms)", "runs",
                 static_cast<int>(kConfigWidth), "config", "device", "date (UTC)");
  };
  for (const db::WorkloadStats& st : *stats) {
    if (st.valid_records == 0) continue;
    db::BestQuery q;
    q.workload = st.workload;
    q.target = st.target;
    q.device_key = filter.device_key;
    q.k = k;
    absl::StatusOr<std::vector<db::BestRecord>> best = db::QueryBest(**log, q);
    if (absl::IsNotFound(best.status())) continue;
    if (!best.ok()) {
      absl::FPrintF(stderr, "tunefarm best: %s\n", best.status().ToString());
      return kExitFailure;
    }
    if (shown++ > 0) absl::PrintF("\n");
    header(st.workload.CanonicalString(), st.target,
           absl::StrFormat("(%d records, %d valid)", st.records, st.valid_records));
    PrintRows(*best);
  }
  // An exact shape nobody tuned: the nearest recorded shape of the template, flagged.
  if (shown == 0 && !filter.args.empty() && !filter.target.empty() &&
      absl::GetFlag(FLAGS_nearest)) {
    db::BestQuery q;
    q.workload.template_name = filter.template_name;
    q.workload.args = filter.args;
    q.target = filter.target;
    q.device_key = filter.device_key;
    q.k = k;
    q.nearest_on_miss = true;
    absl::StatusOr<std::vector<db::BestRecord>> best = db::QueryBest(**log, q);
    if (best.ok()) {
      const db::BestRecord& b = best->front();
      header(b.record.workload.CanonicalString(), filter.target,
             absl::StrFormat("NEAREST recorded shape (distance %.3f) to the untuned %s", b.distance,
                             filter.args));
      PrintRows(*best);
      ++shown;
    }
  }
  if (shown == 0) {
    absl::FPrintF(stderr, "tunefarm best: no valid records match in %s\n", absl::GetFlag(FLAGS_db));
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
