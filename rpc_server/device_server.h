// The device role of a tunefarm server, shared by `tunefarm server` (cli/cmd_server.cc) and the
// lean `tunefarm_server` binary (server_main.cc) that links neither LLVM nor XGBoost and
// cross-compiles for boards (deploy/arm64/). Both parse their flags into DeviceServerOptions
// and call RunDeviceServer; `tunefarm server --role builder` shares ServeWorker.
#ifndef TUNEFARM_RPC_SERVER_DEVICE_SERVER_H_
#define TUNEFARM_RPC_SERVER_DEVICE_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "rpc_server/device_backend.h"
#include "rpc_server/worker.h"

namespace tunefarm {

// Exit codes of a server process (as the CLI's: ok, failure, usage error).
inline constexpr int kServerExitOk = 0;
inline constexpr int kServerExitFailure = 1;
inline constexpr int kServerExitUsage = 2;

struct DeviceServerOptions {
  // Names the program in messages: "tunefarm server" or "tunefarm_server".
  std::string program = "tunefarm_server";
  // Tracker address, token, TLS, key, target, labels, worker id, calibration period. An empty
  // target becomes DefaultCpuTarget(uname -m), or "cuda -arch=sm_XX" for a GPU.
  WorkerOptions worker;
  // "cpu" or "cuda:N" (device_spec.h).
  std::string device = "cpu";
  // The tunefarm_sandbox binary; empty: FindSandboxBinary().
  std::string sandbox;
  // Address-space limit of the sandbox child, MiB (SandboxOptions::memory_limit_mb).
  int64_t memory_limit_mb = 4096;
  // Under qemu-user only (emulation.h): the emulator to exec the sandbox child with (empty:
  // qemu-<arch>-static on $PATH) and its -L sysroot (empty: $QEMU_LD_PREFIX, else none, which
  // suits Debian's multiarch libraries; see EmulatorExecPrefix).
  std::string sandbox_emulator;
  std::string sandbox_sysroot;
};

// The compiler target a CPU worker on machine `arch` (uname -m) measures for when none is
// given: "llvm" on x86-64 (or unknown), "llvm -mtriple=<arch>-linux-gnueabihf" on 32-bit Arm
// (armv7l: Debian's armhf, hard-float), "llvm -mtriple=<arch>-linux-gnu" elsewhere (aarch64).
std::string DefaultCpuTarget(absl::string_view arch);

// "k=v,k2=v2" as label pairs (empty entries skipped; "k" alone has an empty value).
std::vector<std::pair<std::string, std::string>> ParseLabels(absl::string_view text);

// Runs a device worker until SIGTERM or SIGINT: checks the options (usage errors exit
// kServerExitUsage with a line on stderr), finds the sandbox binary, detects emulation and
// then execs the sandbox child through the emulator, starts one sandbox child to see which
// confinement is in force and prints it, then serves. Returns the exit code.
int RunDeviceServer(DeviceServerOptions options);

// Runs a worker on `backend` until SIGTERM/SIGINT (blocked beforehand with
// BlockTerminationSignals, common/termination_signals.h): prints "PROGRAM WORKER_ID (key KEY,
// DETAIL) dialling ADDRESS", serves, and prints how many measurements it made. Returns the exit
// code.
int ServeWorker(absl::string_view program, const WorkerOptions& options,
                std::unique_ptr<DeviceBackend> backend, absl::string_view detail);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_DEVICE_SERVER_H_
