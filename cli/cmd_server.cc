// `tunefarm server`: a device worker that dials the tracker; SIGTERM finishes the measurement
// in progress, reports it, and leaves. `--device cuda:N` measures on a GPU; without a usable
// one it exits with kExitFailure and a "no CUDA device: ..." line.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/farm_flags.h"
#include "cli/subcommand.h"
#include "rpc_server/backend_factory.h"
#include "rpc_server/device_spec.h"
#include "rpc_server/sandbox_process.h"
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

int RunServer(const std::vector<std::string>& positional) {
  if (!positional.empty()) {
    absl::FPrintF(stderr, "tunefarm server: takes no arguments\n");
    return kExitUsage;
  }
  const std::string device_flag =
      absl::GetFlag(FLAGS_device).empty() ? "cpu" : absl::GetFlag(FLAGS_device);
  absl::StatusOr<DeviceSpec> device = ParseDeviceSpec(device_flag);
  if (!device.ok()) {
    absl::FPrintF(stderr, "tunefarm server: --device: %s\n", device.status().message());
    return kExitUsage;
  }
  if (FarmTrackerAddress("").empty() || absl::GetFlag(FLAGS_key).empty()) {
    absl::FPrintF(stderr, "tunefarm server: --tracker HOST:PORT and --key KEY are required\n");
    return kExitUsage;
  }
  const std::string role = absl::GetFlag(FLAGS_role);
  if (role != "device" && role != "builder") {
    absl::FPrintF(stderr, "tunefarm server: --role is device or builder, not '%s'\n", role);
    return kExitUsage;
  }
  BlockTerminationSignals();
  std::string sandbox = absl::GetFlag(FLAGS_sandbox);
  // A builder runs no kernels: it needs no sandbox.
  if (sandbox.empty() && role == "device") {
    absl::StatusOr<std::string> found = FindSandboxBinary();
    if (!found.ok()) {
      absl::FPrintF(stderr, "tunefarm server: %s\n", found.status().message());
      return kExitFailure;
    }
    sandbox = *found;
  }
  absl::StatusOr<std::unique_ptr<DeviceBackend>> backend =
      role == "builder"
          ? absl::StatusOr<std::unique_ptr<DeviceBackend>>(
                std::make_unique<tuner::BuilderBackend>())
          : CreateDeviceBackend(*device,
                                SandboxOptions{sandbox, absl::GetFlag(FLAGS_memory_limit_mb)});
  if (!backend.ok()) {
    absl::FPrintF(stderr, "tunefarm server: %s\n", backend.status().message());
    return kExitFailure;
  }
  v1::DeviceDescription hardware;
  (*backend)->Describe(&hardware);
  WorkerOptions options;
  options.tracker_address = FarmTrackerAddress("");
  options.token = FarmWorkerToken();
  options.tls = FarmTls();
  options.key = absl::GetFlag(FLAGS_key);
  options.target = absl::GetFlag(FLAGS_target);
  if (options.target.empty()) {
    options.target = device->is_cuda() ? "cuda -arch=" + hardware.gpu_arch() : "llvm";
  }
  options.worker_id = absl::GetFlag(FLAGS_worker_id);
  // A builder compiles as many candidates at once as it has build threads (default: cores).
  if (role == "builder") {
    options.parallel = absl::GetFlag(FLAGS_build_threads) > 0
                           ? absl::GetFlag(FLAGS_build_threads)
                           : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  options.calibration_period = absl::Seconds(absl::GetFlag(FLAGS_calibration_period_s));
  for (absl::string_view kv : absl::StrSplit(absl::GetFlag(FLAGS_labels), ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    options.labels.push_back(p);
  }
  absl::StatusOr<std::unique_ptr<Worker>> worker = Worker::Create(options, *std::move(backend));
  if (!worker.ok()) {
    absl::FPrintF(stderr, "tunefarm server: %s\n", worker.status().ToString());
    return kExitFailure;
  }
  absl::PrintF("tunefarm server %s (key %s, %s%s) dialling %s\n", (*worker)->worker_id(),
               options.key, device->ToString(),
               hardware.gpu_name().empty()
                   ? ""
                   : absl::StrFormat(": %s, %s", hardware.gpu_name(), hardware.gpu_arch()),
               options.tracker_address);
  std::fflush(stdout);
  Worker* w = worker->get();
  std::thread signals([w] {
    WaitForTerminationSignal();
    w->Stop();
  });
  signals.detach();  // blocked in sigwait; the process exits when Run returns
  absl::Status status = w->Run();
  absl::PrintF("tunefarm server: stopped after %d measurements\n", w->completed());
  if (!status.ok()) {
    absl::FPrintF(stderr, "tunefarm server: %s\n", status.ToString());
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace tunefarm::cli
