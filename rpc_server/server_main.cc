// `tunefarm_server`: the device server alone, as `tunefarm server --role device` runs it, for
// boards. It links the worker, the sandbox launcher, gRPC, protobuf, Abseil, OpenSSL's
// libcrypto and libdl, never LLVM or XGBoost, and cross-compiles for aarch64
// (deploy/arm64/build.sh). Its flags have the names and meanings of `tunefarm server`'s.
//
//   tunefarm_server --tracker HOST:PORT --key KEY [--device cpu|cuda:N] [--labels k=v,...]
//
// SIGTERM or SIGINT finishes the measurement in progress, reports it, and exits 0.
#include <string>
#include <vector>

#include "absl/debugging/failure_signal_handler.h"
#include "absl/debugging/symbolize.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_format.h"
#include "common/tls_options.h"
#include "common/version.h"
#include "rpc_server/device_server.h"

ABSL_FLAG(std::string, tracker, "", "HOST:PORT of the tracker (required).");
ABSL_FLAG(std::string, key, "", "Device key, e.g. arm64-rpi4 (required).");
ABSL_FLAG(std::string, target, "",
          "Compiler target of this device (default: llvm on x86-64, "
          "llvm -mtriple=ARCH-linux-gnu elsewhere, cuda -arch=sm_XX on a GPU).");
ABSL_FLAG(std::string, device, "cpu", "What to measure on: cpu or cuda:N.");
ABSL_FLAG(std::string, worker_id, "", "Unique worker name (default HOST-PID-N).");
ABSL_FLAG(std::string, labels, "", "Comma-separated k=v labels shown in status.");
ABSL_FLAG(std::string, sandbox, "",
          "Path of tunefarm_sandbox (default: $TUNEFARM_SANDBOX, else next to this program).");
ABSL_FLAG(int, memory_limit_mb, 4096,
          "Address-space limit of the kernel sandbox, MiB (with a CUDA device: the bound on one "
          "request's tensors).");
ABSL_FLAG(double, calibration_period_s, 60,
          "Seconds between runs of the noise calibration kernel (0: never).");
ABSL_FLAG(std::string, sandbox_emulator, "",
          "Only when running under qemu-user: the emulator that execs tunefarm_sandbox "
          "(default: qemu-ARCH-static on PATH).");
ABSL_FLAG(std::string, sandbox_sysroot, "",
          "Only when running under qemu-user: the emulator's -L sysroot for tunefarm_sandbox "
          "(default: $QEMU_LD_PREFIX, else none: Debian's multiarch libc6:arm64 needs none).");
ABSL_FLAG(std::string, token, "",
          "Shared secret of the farm (else $TUNEFARM_TOKEN); never logged.");
ABSL_FLAG(std::string, worker_token, "",
          "Secret of the worker role (else $TUNEFARM_WORKER_TOKEN, else the shared --token).");
ABSL_FLAG(std::string, tls_ca, "", "PEM CA that signed the tracker's certificate (enables TLS).");
ABSL_FLAG(std::string, tls_server_name, "",
          "Expected name in the tracker's certificate, if not the host dialled.");
ABSL_FLAG(std::string, tls_client_cert, "",
          "PEM client certificate to present to a mutual-TLS tracker.");
ABSL_FLAG(std::string, tls_client_key, "", "PEM private key of --tls_client_cert.");

int main(int argc, char** argv) {
  absl::InitializeSymbolizer(argv[0]);
  absl::InstallFailureSignalHandler(absl::FailureSignalHandlerOptions());
  absl::SetProgramUsageMessage(
      "tunefarm_server --tracker HOST:PORT --key KEY [flags]: a device worker that dials a "
      "tunefarm tracker and measures kernels (tunefarm server --role device, without the "
      "compiler).");
  absl::FlagsUsageConfig usage;
  usage.version_string = [] { return std::string("tunefarm_server ") + TUNEFARM_VERSION + "\n"; };
  absl::SetFlagsUsageConfig(usage);
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() > 1) {
    absl::FPrintF(stderr, "tunefarm_server: takes no arguments (got '%s')\n", positional[1]);
    return tunefarm::kServerExitUsage;
  }
  tunefarm::DeviceServerOptions options;
  options.program = "tunefarm_server";
  tunefarm::WorkerOptions& worker = options.worker;
  worker.tracker_address = absl::GetFlag(FLAGS_tracker);
  worker.token = tunefarm::RoleToken(
      tunefarm::TokenFromFlagOrEnv(absl::GetFlag(FLAGS_worker_token), tunefarm::kWorkerTokenEnvVar),
      tunefarm::TokenFromFlagOrEnv(absl::GetFlag(FLAGS_token)));
  worker.tls.ca_file = absl::GetFlag(FLAGS_tls_ca);
  worker.tls.server_name_override = absl::GetFlag(FLAGS_tls_server_name);
  worker.tls.client_cert_file = absl::GetFlag(FLAGS_tls_client_cert);
  worker.tls.client_key_file = absl::GetFlag(FLAGS_tls_client_key);
  worker.key = absl::GetFlag(FLAGS_key);
  worker.target = absl::GetFlag(FLAGS_target);
  worker.worker_id = absl::GetFlag(FLAGS_worker_id);
  worker.labels = tunefarm::ParseLabels(absl::GetFlag(FLAGS_labels));
  worker.calibration_period = absl::Seconds(absl::GetFlag(FLAGS_calibration_period_s));
  options.device = absl::GetFlag(FLAGS_device);
  options.sandbox = absl::GetFlag(FLAGS_sandbox);
  options.memory_limit_mb = absl::GetFlag(FLAGS_memory_limit_mb);
  options.sandbox_emulator = absl::GetFlag(FLAGS_sandbox_emulator);
  options.sandbox_sysroot = absl::GetFlag(FLAGS_sandbox_sysroot);
  return tunefarm::RunDeviceServer(std::move(options));
}
