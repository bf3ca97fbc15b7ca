#include "cli/job_display.h"

#include <unistd.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace tunefarm::cli {
namespace {

std::string Duration(double s) {
  if (s < 60) return absl::StrFormat("%.0fs", s);
  if (s < 3600)
    return absl::StrFormat("%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return absl::StrFormat("%dh%02dm", static_cast<int>(s) / 3600, (static_cast<int>(s) / 60) % 60);
}

std::string TaskName(const v1::TaskSpec& t) {
  if (!t.program().empty()) {
    std::vector<std::pair<std::string, int64_t>> shapes(t.shapes().begin(), t.shapes().end());
    std::sort(shapes.begin(), shapes.end());
    return absl::StrCat(t.program_name().empty() ? "program" : t.program_name(), "[",
                        absl::StrJoin(shapes, ",", absl::PairFormatter("=")), "]");
  }
  return absl::StrCat(t.template_name(), "[", absl::StrJoin(t.args(), ","), "]");
}

}  // namespace

const char* JobStateName(v1::JobState state) {
  switch (state) {
    case v1::JOB_QUEUED:
      return "queued";
    case v1::JOB_RUNNING:
      return "running";
    case v1::JOB_SUCCEEDED:
      return "succeeded";
    case v1::JOB_FAILED:
      return "failed";
    case v1::JOB_CANCELLED:
      return "cancelled";
    default:
      return "unknown";
  }
}

ProgressLine::ProgressLine(FILE* out, Describe describe)
    : out_(out), describe_(std::move(describe)), tty_(isatty(fileno(out)) != 0) {}

void ProgressLine::Update(const v1::JobStatus& s) {
  int total = std::max(1, s.trials_total());
  int done = std::min(s.trials_done(), total);
  constexpr int kWidth = 24;
  int filled = done * kWidth / total;
  std::string bar(filled, '=');
  if (filled < kWidth) bar += '>' + std::string(kWidth - filled - 1, ' ');
  std::string cfg = s.best_config();
  if (cfg.size() > 60) cfg = cfg.substr(0, 57) + "...";
  std::string line;
  if (describe_) {
    line = absl::StrFormat("[%s] %d/%d trials | %s | ETA %s", bar, done, total, describe_(s),
                           Duration(s.eta_s()));
  } else if (s.tasks_size() > 1) {
    // A model's job: the latency its tuned kernels add up to so far, Σ runs × best time.
    double latency = 0;
    int measured = 0;
    for (const v1::TaskStatus& t : s.tasks()) {
      if (t.best_cost_s() <= 0) continue;
      latency += (t.spec().weight() > 0 ? t.spec().weight() : 1) * t.best_cost_s();
      ++measured;
    }
    line =
        absl::StrFormat("[%s] %d/%d trials | model %.3f ms over %d/%d tasks measured | ETA %s", bar,
                        done, total, latency * 1e3, measured, s.tasks_size(), Duration(s.eta_s()));
  } else {
    line = absl::StrFormat("[%s] %d/%d trials | best %.1f GFLOP/s | ETA %s | %s", bar, done, total,
                           s.best_gflops(), Duration(s.eta_s()), cfg);
  }
  if (tty_) {
    absl::FPrintF(out_, "\r\033[K%s", line);
    drawn_ = true;
  } else {
    int decile = done * 10 / total;
    if (decile == last_decile_) return;
    last_decile_ = decile;
    absl::FPrintF(out_, "%s\n", line);
  }
  fflush(out_);
}

void ProgressLine::Finish() {
  if (tty_ && drawn_) absl::FPrintF(out_, "\n");
  drawn_ = false;
}

void PrintJobSummary(const v1::JobStatus& s, FILE* out) {
  absl::FPrintF(out, "job %s %s after %d trials in %s (tuning log job %d)\n", s.job_id(),
                JobStateName(s.state()), s.trials_done(), Duration(s.elapsed_s()), s.log_job_id());
  if (!s.error().empty()) absl::FPrintF(out, "error: %s\n", s.error());
  v1::TaskTime time;  // Summed over the tasks.
  for (const v1::TaskStatus& t : s.tasks()) {
    time.set_search_s(time.search_s() + t.time().search_s());
    time.set_build_s(time.build_s() + t.time().build_s());
    time.set_measure_s(time.measure_s() + t.time().measure_s());
    time.set_record_s(time.record_s() + t.time().record_s());
  }
  const double spent = time.search_s() + time.build_s() + time.measure_s() + time.record_s();
  if (spent > 0) {
    auto part = [&](const char* what, double t) {
      return absl::StrFormat("%s %s (%.0f%%)", what, Duration(t), 100 * t / spent);
    };
    absl::FPrintF(out, "time: %s, %s, %s, %s\n", part("searching", time.search_s()),
                  part("building", time.build_s()), part("measuring", time.measure_s()),
                  part("logging", time.record_s()));
  }
  absl::FPrintF(out, "%-36s %8s %12s %10s  %s\n", "task", "trials", "GFLOP/s", "time (ms)",
                "best config");
  for (const v1::TaskStatus& t : s.tasks()) {
    absl::FPrintF(out, "%-36s %8d %12.1f %10.3f  %s\n", TaskName(t.spec()), t.trials_done(),
                  t.best_gflops(), t.best_cost_s() * 1e3, t.best_config());
  }
}

void PrintJobTable(const std::vector<v1::JobStatus>& jobs, FILE* out) {
  absl::FPrintF(out, "%-8s %-10s %-36s %12s %10s\n", "job", "state", "first task", "trials",
                "GFLOP/s");
  for (const v1::JobStatus& j : jobs) {
    std::string task = j.tasks_size() > 0 ? TaskName(j.tasks(0).spec()) : "-";
    absl::FPrintF(out, "%-8s %-10s %-36s %5d/%-6d %10.1f\n", j.job_id(), JobStateName(j.state()),
                  task, j.trials_done(), j.trials_total(), j.best_gflops());
  }
}

}  // namespace tunefarm::cli
