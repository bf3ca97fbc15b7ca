// Entry points of the `tunefarm` subcommands, one source file each (cmd_<name>.cc).
// Each takes the positional arguments left after flag parsing and returns an exit code.
#ifndef TUNEFARM_CLI_COMMANDS_H_
#define TUNEFARM_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace tunefarm::cli {

// `tunefarm version`: prints the tunefarm version and the versions of the linked libraries.
int RunVersion(const std::vector<std::string>& positional);

// `tunefarm tracker`: runs the tracker until SIGTERM, then drains (cmd_tracker.cc).
int RunTracker(const std::vector<std::string>& positional);

// `tunefarm server`: runs a device worker that dials the tracker (cmd_server.cc).
int RunServer(const std::vector<std::string>& positional);

// `tunefarm status`: prints the farm's devices, queues and throughput (cmd_status.cc).
int RunStatus(const std::vector<std::string>& positional);
int RunHealth(const std::vector<std::string>& positional);

// Tuning-log commands (issue 7): cmd_best.cc, cmd_history.cc, cmd_import_log.cc,
// cmd_export_log.cc; shared flags in log_flags.{h,cc} and log_filter_flags.cc.
int RunBest(const std::vector<std::string>& positional);
int RunHistory(const std::vector<std::string>& positional);
int RunImportLog(const std::vector<std::string>& positional);
int RunExportLog(const std::vector<std::string>& positional);

// Tuning jobs (issue 6): cmd_tune.cc, cmd_serve.cc, cmd_jobs.cc; shared setup in
// tuning_setup.{h,cc}, display in job_display.{h,cc}.
int RunTune(const std::vector<std::string>& positional);
int RunServe(const std::vector<std::string>& positional);
int RunJobs(const std::vector<std::string>& positional);
int RunWatch(const std::vector<std::string>& positional);
int RunCancel(const std::vector<std::string>& positional);
int RunExport(const std::vector<std::string>& positional);
// cmd_measure.cc: a log's best config measured again on the farm.
int RunMeasure(const std::vector<std::string>& positional);

// Whole models (issue 15): cmd_import_model.cc, cmd_tune_model.cc, cmd_compile.cc, cmd_run.cc;
// shared in model_flags.{h,cc}.
int RunImportModel(const std::vector<std::string>& positional);
int RunTuneModel(const std::vector<std::string>& positional);
int RunCompile(const std::vector<std::string>& positional);
int RunRun(const std::vector<std::string>& positional);

}  // namespace tunefarm::cli

#endif  // TUNEFARM_CLI_COMMANDS_H_
