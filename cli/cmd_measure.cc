// `tunefarm measure`: the best recorded config of a workload, measured again on the farm a few
// times. The tuning log's time is the best of many noisy trials (it reads low) and a machine's
// speed drifts, so a deployed kernel is compared with this: the same config, timed today on
// the same device, in the same way. Every run is recorded in the log like any trial.
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/log_flags.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"
#include "common/termination_signals.h"
#include "common/version.h"
#include "compiler/codegen/target.h"
#include "db/query_best.h"
#include "tuner/export/export_library.h"
#include "tuner/tuning/measurer.h"
#include "tuner/tuning/remeasure.h"
#include "tuner/tuning/task.h"
#include "tuner/tuning/tuner.h"

ABSL_DECLARE_FLAG(int, runs);  // cmd_run.cc
ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(int, repeat);
ABSL_DECLARE_FLAG(int, min_repeat_ms);
ABSL_DECLARE_FLAG(bool, flush_cache);

namespace tunefarm::cli {

int RunMeasure(const std::vector<std::string>& positional) {
  constexpr char kCommand[] = "tunefarm measure";
  if (!positional.empty()) {
    absl::FPrintF(stderr, "%s: takes no arguments (use --workload)\n", kCommand);
    return kExitUsage;
  }
  auto spec = ParseWorkloadSpec(absl::GetFlag(FLAGS_workload));
  if (!spec.ok() || spec->args.empty()) {
    absl::FPrintF(stderr,
                  "%s: --workload wants one TEMPLATE:ARGS, e.g. "
                  "'dense:[1024,1024,1024,\"float32\"]' (got '%s')\n",
                  kCommand, absl::GetFlag(FLAGS_workload));
    return kExitUsage;
  }
  auto workload = db::Workload::Make(spec->template_name, spec->args, 0);
  if (!workload.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", kCommand, workload.status().message());
    return kExitUsage;
  }
  // As the log stores it: "llvm" is "llvm -mcpu=<this host's CPU>".
  auto parsed_target = codegen::ParseTarget(
      absl::GetFlag(FLAGS_target).empty() ? "llvm" : absl::GetFlag(FLAGS_target));
  if (!parsed_target.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", kCommand, parsed_target.status().message());
    return kExitUsage;
  }
  const std::string target = parsed_target->str;
  const int runs = absl::GetFlag(FLAGS_runs) > 0 ? absl::GetFlag(FLAGS_runs) : 5;
  if (runs < 1 || runs > 100) {
    absl::FPrintF(stderr, "%s: --runs must be 1-100 (got %d)\n", kCommand, runs);
    return kExitUsage;
  }
  BlockTerminationSignals();
  auto stack = StartTuningStack();
  if (!stack.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", kCommand, stack.status().ToString());
    return kExitFailure;
  }
  db::TuningLog& log = *(*stack)->log;
  auto best = db::BestPerWorkload(log, {*workload}, target, absl::GetFlag(FLAGS_device_key));
  if (!best.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", kCommand, best.status().ToString());
    return kExitFailure;
  }
  const db::BestRecord& b = best->front();
  const std::string device_key = (*stack)->farm->device_key;
  auto task = tuner::MakeTaskFor(*workload, target, device_key,
                                 [&](const std::string& hash) { return log.ProgramText(hash); });
  if (!task.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", kCommand, task.status().ToString());
    return kExitFailure;
  }
  auto index = tuner::IndexToRebuild(*task, b);
  if (!index.ok() || !index->has_value()) {
    absl::FPrintF(stderr, "%s: %s\n", kCommand,
                  index.ok() ? "the best record is not of this shape" : index.status().ToString());
    return kExitFailure;
  }
  db::JobInfo job;
  job.name = absl::StrCat("measure ", workload->template_name, " ", workload->args);
  job.target = task->target.str;
  job.device_key = device_key;
  job.tuner_version = kTunerVersion;
  job.trials = runs;
  job.created_at = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
  auto job_id = log.CreateJob(job);
  if (!job_id.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", kCommand, job_id.status().ToString());
    return kExitFailure;
  }
  tuner::TrackerMeasurerOptions mo;
  mo.job_id = absl::StrCat("measure-", *job_id, "-", std::random_device()());
  mo.device_key = device_key;
  mo.timing.set_repeat(absl::GetFlag(FLAGS_repeat));
  mo.timing.set_min_repeat_ms(absl::GetFlag(FLAGS_min_repeat_ms));
  mo.timing.set_flush_cache(absl::GetFlag(FLAGS_flush_cache));
  mo.cancelled = [] { return WaitForTerminationSignalFor(0) != 0; };  // Ctrl-C stops
  tuner::TrackerMeasurer measurer((*stack)->farm->client.get(), mo);
  absl::FPrintF(stderr, "measuring config %d of %s %s %d times on %s...\n", **index,
                workload->template_name, workload->args, runs, device_key);
  auto again =
      tuner::RemeasureConfig(*task, **index, measurer, &log,
                             {.runs = runs, .db_job_id = *job_id, .tuner_version = kTunerVersion});
  if (!again.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", kCommand, again.status().ToString());
    return kExitFailure;
  }
  const double flop = task->workload.flop;
  auto gflops = [flop](double s) { return s > 0 && flop > 0 ? flop / s * 1e-9 : 0.0; };
  absl::PrintF("%-6s %12s %10s\n", "run", "time (ms)", "GFLOP/s");
  for (size_t i = 0; i < again->results.size(); ++i) {
    const double cost = tuner::ResultCost(again->results[i]);
    if (std::isfinite(cost)) {
      absl::PrintF("%-6d %12.4f %10.1f\n", i + 1, cost * 1e3, gflops(cost));
    } else {
      absl::PrintF("%-6d %12s %10s  %s\n", i + 1, "-", "-", again->results[i].message());
    }
  }
  // The log's time for the config, as `best` ranks it (the median of its re-measurements when
  // it had any), read before these runs were added.
  absl::PrintF(
      "median %.4f ms (%.1f GFLOP/s) over %d runs; the log's %.4f ms (%s): now/log %.3f\n",
      again->median_s * 1e3, gflops(again->median_s), again->costs_s.size(), b.cost_s * 1e3,
      b.confirmed ? absl::StrCat("median of ", b.runs, " re-measurements") : "one measurement",
      b.cost_s > 0 ? again->median_s / b.cost_s : 0.0);
  absl::PrintF("config %s\n", b.record.config_json);
  return kExitOk;
}

}  // namespace tunefarm::cli
