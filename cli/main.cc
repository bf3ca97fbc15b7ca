// `tunefarm`: the single binary. Each subcommand is one row of kSubcommands.
#include "absl/debugging/failure_signal_handler.h"
#include "absl/debugging/symbolize.h"
#include "absl/strings/string_view.h"
#include "cli/commands.h"
#include "cli/subcommand.h"

namespace tunefarm::cli {
namespace {

// Flag groups, by what they configure. A flag may sit in several groups' commands.
constexpr absl::string_view kFarm[] = {"tracker",       "token",           "worker_token",
                                       "client_token",  "tls_cert",        "tls_key",
                                       "tls_client_ca", "tls_client_cert", "tls_client_key",
                                       "tls_ca",        "tls_server_name"};
constexpr absl::string_view kSetup[] = {
    "workers", "threads_per_worker", "build_threads", "builders",
    "repeat",  "min_repeat_ms",      "flush_cache",   "service"};
constexpr absl::string_view kDevice[] = {"target", "key", "device"};
constexpr absl::string_view kTarget[] = {"target"};
constexpr absl::string_view kListen[] = {"host", "port", "http", "http_host", "http_allowed_hosts"};
constexpr absl::string_view kLog[] = {"db"};
constexpr absl::string_view kLogFilter[] = {"workload", "device_key"};
constexpr absl::string_view kTune[] = {"shape",  "expr",     "space",        "dtype",
                                       "trials", "strategy", "batch",        "early_stopping",
                                       "seed",   "top_k",    "top_k_rounds", "name"};
constexpr absl::string_view kSeed[] = {"seed_from_log"};
constexpr absl::string_view kTracker[] = {
    "max_queue", "heartbeat_timeout_s", "noise_threshold", "max_message_mb",
    "keys",      "drain_timeout_s"};
constexpr absl::string_view kServer[] = {
    "role",    "build_threads",   "worker_id",           "labels",
    "sandbox", "memory_limit_mb", "calibration_period_s"};
constexpr absl::string_view kBest[] = {"k", "nearest"};
constexpr absl::string_view kHistory[] = {"job", "plot"};
constexpr absl::string_view kExport[] = {"o", "header", "allow_nearest"};
constexpr absl::string_view kMeasure[] = {"runs"};
constexpr absl::string_view kImportLog[] = {"tvm_device_key"};
constexpr absl::string_view kVersion[] = {"short"};
constexpr absl::string_view kModel[] = {"input_shape"};
constexpr absl::string_view kServe[] = {"model_dir", "max_model_mb"};
constexpr absl::string_view kTuneModel[] = {"model_on_service"};
constexpr absl::string_view kImportModel[] = {"programs"};
constexpr absl::string_view kCompile[] = {"o", "header", "weights", "device_key",
                                          "weight_read_gbs"};
constexpr absl::string_view kRun[] = {"weights", "input",   "expect", "save_output",
                                      "runs",    "profile", "threads"};

constexpr Subcommand kSubcommands[] = {
    {"tune",
     "Tune an operator on a farm (embedded local farm without --tracker).",
     "OPERATOR | --expr FILE",
     {kTune, kSeed, kSetup, kFarm, kDevice, kLog},
     RunTune,
     ""},
    {"import-model",
     "Read an ONNX model and show its fused groups, shapes and FLOPs.",
     "MODEL.onnx",
     {kModel, kImportModel, kTarget},
     RunImportModel,
     ""},
    {"tune-model",
     "Tune every fused group of an ONNX model as one job (embedded farm without --tracker).",
     "MODEL.onnx",
     {kModel, kTuneModel, kTune, kSetup, kFarm, kDevice, kLog},
     RunTuneModel,
     ""},
    {"compile",
     "Build an ONNX model into one library with a C ABI from the best tuned kernels.",
     "MODEL.onnx",
     {kModel, kCompile, kLog, kTarget},
     RunCompile,
     ""},
    {"run",
     "Run a compiled model: latency, per-call profile, error against expected outputs.",
     "MODEL.so",
     {kRun},
     RunRun,
     ""},
    {"serve",
     "Run the job service: tuning jobs over gRPC.",
     "",
     {kSetup, kFarm, kDevice, kLog, kListen, kServe},
     RunServe,
     ""},
    {"jobs", "List the jobs of a job service.", "", {kSetup, kFarm}, RunJobs, ""},
    {"watch", "Follow a job of a job service until it ends.", "JOB", {kSetup, kFarm}, RunWatch, ""},
    {"cancel", "Cancel a job of a job service.", "JOB", {kSetup, kFarm}, RunCancel, ""},
    {"tracker",
     "Run the tracker that queues measurements for device workers.",
     "",
     {kTracker, kFarm, kListen},
     RunTracker,
     ""},
    {"server",
     "Run a device worker that dials a tracker and measures kernels.",
     "",
     {kServer, kFarm, kDevice},
     RunServer,
     ""},
    {"status", "Show the devices, queues and throughput of a farm.", "", {kFarm}, RunStatus, ""},
    {"health",
     "Ask a tracker or job service whether it serves (grpc.health.v1); exit 0 if so.",
     "ADDRESS",
     {kFarm},
     RunHealth,
     ""},
    {"best",
     "Show the best recorded schedules from a tuning log.",
     "",
     {kBest, kLog, kLogFilter, kTarget},
     RunBest,
     ""},
    {"history",
     "Plot the tuning curve of a job from a tuning log.",
     "",
     {kHistory, kLog},
     RunHistory,
     ""},
    {"export",
     "Build a deployable kernel library from the best schedules.",
     "",
     {kExport, kLog, kLogFilter, kTarget},
     RunExport,
     ""},
    {"measure",
     "Measure the best recorded config of a workload again on a farm, a few times.",
     "",
     {kMeasure, kLog, kLogFilter, kSetup, kFarm, kDevice},
     RunMeasure,
     ""},
    {"import-log",
     "Import an AutoTVM JSON-lines tuning log.",
     "FILE",
     {kImportLog, kLog},
     RunImportLog,
     ""},
    {"export-log",
     "Export records as an AutoTVM JSON-lines tuning log.",
     "FILE",
     {kLog, kLogFilter, kTarget},
     RunExportLog,
     ""},
    {"version",
     "Print the version of tunefarm and of the libraries it links.",
     "",
     {kVersion},
     RunVersion,
     ""},
};

}  // namespace
}  // namespace tunefarm::cli

int main(int argc, char** argv) {
  absl::InitializeSymbolizer(argv[0]);
  absl::InstallFailureSignalHandler(absl::FailureSignalHandlerOptions());
  return tunefarm::cli::Dispatch(tunefarm::cli::kSubcommands, argc, argv);
}
