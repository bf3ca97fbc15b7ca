// `tunefarm`: the single binary. Each subcommand is one row of kSubcommands.
#include "absl/debugging/failure_signal_handler.h"
#include "absl/debugging/symbolize.h"
#include "cli/commands.h"
#include "cli/subcommand.h"

namespace tunefarm::cli {
namespace {

constexpr Subcommand kSubcommands[] = {
    {"tune", "Tune an operator on a farm (embedded local farm without --tracker).", "OPERATOR",
     "cmd_tune.cc,tuning_setup.cc,farm_flags.cc,target_flag.cc,key_flag.cc,device_flag.cc,"
     "log_flags.cc",
     RunTune, ""},
    {"serve", "Run the job service: tuning jobs over gRPC.", "",
     "tuning_setup.cc,farm_flags.cc,target_flag.cc,key_flag.cc,device_flag.cc,log_flags.cc,"
     "listen_flags.cc",
     RunServe, ""},
    {"jobs", "List the jobs of a job service.", "", "tuning_setup.cc,farm_flags.cc", RunJobs, ""},
    {"watch", "Follow a job of a job service until it ends.", "JOB",
     "tuning_setup.cc,farm_flags.cc", RunWatch, ""},
    {"cancel", "Cancel a job of a job service.", "JOB", "tuning_setup.cc,farm_flags.cc", RunCancel,
     ""},
    {"tracker", "Run the tracker that queues measurements for device workers.", "",
     "cmd_tracker.cc,farm_flags.cc,listen_flags.cc", RunTracker, ""},
    {"server", "Run a device worker that dials a tracker and measures kernels.", "",
     "cmd_server.cc,farm_flags.cc,target_flag.cc,key_flag.cc,device_flag.cc", RunServer, ""},
    {"status", "Show the devices, queues and throughput of a farm.", "", "farm_flags.cc", RunStatus,
     ""},
    {"best", "Show the best recorded schedules from a tuning log.", "",
     "cmd_best.cc,log_flags.cc,log_filter_flags.cc,target_flag.cc", RunBest, ""},
    {"history", "Plot the tuning curve of a job from a tuning log.", "",
     "cmd_history.cc,log_flags.cc", RunHistory, ""},
    {"export", "Build a deployable kernel library from the best schedules.", "",
     "cmd_export.cc,log_flags.cc,log_filter_flags.cc,target_flag.cc", RunExport, ""},
    {"import-log", "Import an AutoTVM JSON-lines tuning log.", "FILE",
     "cmd_import_log.cc,log_flags.cc", RunImportLog, ""},
    {"export-log", "Export records as an AutoTVM JSON-lines tuning log.", "FILE",
     "log_flags.cc,log_filter_flags.cc,target_flag.cc", RunExportLog, ""},
    {"version", "Print the version of tunefarm and of the libraries it links.", "",
     "cmd_version.cc", RunVersion, ""},
};

}  // namespace
}  // namespace tunefarm::cli

int main(int argc, char** argv) {
  absl::InitializeSymbolizer(argv[0]);
  absl::InstallFailureSignalHandler(absl::FailureSignalHandlerOptions());
  return tunefarm::cli::Dispatch(tunefarm::cli::kSubcommands, argc, argv);
}
