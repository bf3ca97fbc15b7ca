// `tunefarm server`: a device worker that dials the tracker; SIGTERM finishes the measurement
// in progress, reports it, and leaves. `--device cuda:N` measures on a GPU; without a usable
// one it exits with kExitFailure and a "no CUDA device: ..." line. The device role is
// rpc_server/device_server.h's, shared with the lean `tunefarm_server` binary; the builder
// role (it links the compiler) is only here.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/farm_flags.h"
#include "cli/subcommand.h"
#include "rpc_server/device_server.h"
#include "rpc_server/device_spec.h"
#include "rpc_server/worker.h"
#include "tuner/service/builder_backend.h"

ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(std::string, key);
ABSL_DECLARE_FLAG(std::string, device);
ABSL_DECLARE_FLAG(int, build_threads);
ABSL_FLAG(std::string, role, "device",
          "device: measure kernels; builder: compile candidates for tuners (tune --builders KEY).");
ABSL_FLAG(std::string, worker_id, "", "Unique worker name (default HOST-PID-N).");
ABSL_FLAG(std::string, labels, "", "Comma-separated k=v labels shown in status.");
ABSL_FLAG(std::string, sandbox, "", "Path of tunefarm_sandbox (default: found next to tunefarm).");
ABSL_FLAG(int, memory_limit_mb, 4096,
          "Address-space limit of the kernel sandbox, MiB (with a CUDA device: the bound on one "
          "request's tensors, host and device; the CUDA driver cannot run under an "
          "address-space limit).");
ABSL_FLAG(double, calibration_period_s, 60,
          "Seconds between runs of the noise calibration kernel (0: never).");

namespace tunefarm::cli {
namespace {

// The options both roles share, from the flags.
WorkerOptions WorkerOptionsFromFlags() {
  WorkerOptions options;
  options.tracker_address = FarmTrackerAddress("");
  options.token = FarmWorkerToken();
  options.tls = FarmTls();
  options.key = absl::GetFlag(FLAGS_key);
  options.target = absl::GetFlag(FLAGS_target);
  options.worker_id = absl::GetFlag(FLAGS_worker_id);
  options.calibration_period = absl::Seconds(absl::GetFlag(FLAGS_calibration_period_s));
  options.labels = ParseLabels(absl::GetFlag(FLAGS_labels));
  return options;
}

// A builder compiles candidates for tuners: no sandbox, no device.
int RunBuilder() {
  WorkerOptions options = WorkerOptionsFromFlags();
  if (options.tracker_address.empty() || options.key.empty()) {
    absl::FPrintF(stderr, "tunefarm server: --tracker HOST:PORT and --key KEY are required\n");
    return kExitUsage;
  }
  if (options.target.empty()) options.target = "llvm";
  // As many candidates at once as it has build threads (default: cores).
  options.parallel = absl::GetFlag(FLAGS_build_threads) > 0
                         ? absl::GetFlag(FLAGS_build_threads)
                         : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  BlockTerminationSignals();
  return ServeWorker("tunefarm server", options, std::make_unique<tuner::BuilderBackend>(), "cpu");
}

}  // namespace

int RunServer(const std::vector<std::string>& positional) {
  if (!positional.empty()) {
    absl::FPrintF(stderr, "tunefarm server: takes no arguments\n");
    return kExitUsage;
  }
  const std::string role = absl::GetFlag(FLAGS_role);
  if (role != "device" && role != "builder") {
    absl::FPrintF(stderr, "tunefarm server: --role is device or builder, not '%s'\n", role);
    return kExitUsage;
  }
  if (role == "builder") {
    const std::string device = absl::GetFlag(FLAGS_device);
    if (!device.empty() && !ParseDeviceSpec(device).ok()) {
      absl::FPrintF(stderr, "tunefarm server: --device: %s\n",
                    ParseDeviceSpec(device).status().message());
      return kExitUsage;
    }
    return RunBuilder();
  }
  DeviceServerOptions options;
  options.program = "tunefarm server";
  options.worker = WorkerOptionsFromFlags();
  options.device = absl::GetFlag(FLAGS_device).empty() ? "cpu" : absl::GetFlag(FLAGS_device);
  options.sandbox = absl::GetFlag(FLAGS_sandbox);
  options.memory_limit_mb = absl::GetFlag(FLAGS_memory_limit_mb);
  return RunDeviceServer(std::move(options));
}

}  // namespace tunefarm::cli
