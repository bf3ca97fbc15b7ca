#include "rpc_server/device_server.h"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/termination_signals.h"
#include "rpc_server/backend_factory.h"
#include "rpc_server/cpu_backend.h"
#include "rpc_server/device_spec.h"
#include "rpc_server/emulation.h"
#include "rpc_server/sandbox_process.h"
#include "rpc_server/sandbox_protocol.h"

namespace tunefarm {
namespace {

// What the sandbox child reported it set up, for the start-up line. `emulated_memory_limit`:
// the emulator runs under prlimit (EmulatorExecPrefix), not just the guest's ignored rlimit.
std::string DescribeConfinement(uint32_t c, bool emulated, bool emulated_memory_limit) {
  std::vector<std::string> parts;
  if ((c & kConfinedSeccomp) != 0) {
    parts.push_back("seccomp filter on");
  } else if ((c & kConfinedEmulated) != 0) {
    parts.push_back("seccomp filter OFF (qemu-user refuses seccomp)");
  }
  if ((c & kConfinedUserNamespace) != 0) {
    parts.push_back("own user+network namespace");
  } else if ((c & kConfinedNetworkNamespace) != 0) {
    parts.push_back("own network namespace (no user namespace)");
  } else {
    parts.push_back((c & kConfinedSeccomp) != 0
                        ? "host network namespace (sockets refused by the filter)"
                        : "host network namespace: kernels CAN open sockets");
  }
  if ((c & kConfinedNoFileWrites) != 0) {
    parts.push_back("file writes refused");
  } else if (emulated) {
    parts.push_back("files: RLIMIT_FSIZE 0 only (create/rename/delete not refused)");
  }
  if (emulated) {
    parts.push_back(emulated_memory_limit
                        ? "memory: RLIMIT_AS on the emulator (limit + emulator overhead)"
                        : "memory: NOT limited (qemu-user ignores RLIMIT_AS; no prlimit found)");
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace

std::string DefaultCpuTarget(absl::string_view arch) {
  if (arch.empty() || arch == "x86_64") return "llvm";
  // 32-bit Arm (armv6l, armv7l, armv8l): Debian's armhf userland is hard-float, and LLVM's
  // "-linux-gnu" on arm means soft-float (codegen/linker.h GnuTripleOf refuses it).
  const bool arm32 = MachineFamily(arch) == "arm" && arch != "aarch64" && arch != "arm64";
  return absl::StrCat("llvm -mtriple=", arch, arm32 ? "-linux-gnueabihf" : "-linux-gnu");
}

std::vector<std::pair<std::string, std::string>> ParseLabels(absl::string_view text) {
  std::vector<std::pair<std::string, std::string>> labels;
  for (absl::string_view kv : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    labels.push_back(absl::StrSplit(kv, absl::MaxSplits('=', 1)));
  }
  return labels;
}

int RunDeviceServer(DeviceServerOptions options) {
  const std::string& program = options.program;
  absl::StatusOr<DeviceSpec> device =
      ParseDeviceSpec(options.device.empty() ? "cpu" : options.device);
  if (!device.ok()) {
    absl::FPrintF(stderr, "%s: --device: %s\n", program, device.status().message());
    return kServerExitUsage;
  }
  if (options.worker.tracker_address.empty() || options.worker.key.empty()) {
    absl::FPrintF(stderr, "%s: --tracker HOST:PORT and --key KEY are required\n", program);
    return kServerExitUsage;
  }
  BlockTerminationSignals();
  if (options.sandbox.empty()) {
    absl::StatusOr<std::string> found = FindSandboxBinary();
    if (!found.ok()) {
      absl::FPrintF(stderr, "%s: %s\n", program, found.status().message());
      return kServerExitFailure;
    }
    options.sandbox = *found;
  }
  SandboxOptions sandbox{options.sandbox, options.memory_limit_mb};
  const EmulationInfo emulation = DetectHostEmulation();
  // Only an emulated worker lets its child go without seccomp; SandboxProcess refuses a child
  // that did so anyway, and the first calibration below then fails.
  sandbox.emulated = emulation.emulated;
  if (emulation.emulated) {
    std::string sysroot = options.sandbox_sysroot;
    if (sysroot.empty() && std::getenv("QEMU_LD_PREFIX") != nullptr) {
      sysroot = std::getenv("QEMU_LD_PREFIX");
    }
    const char* path = std::getenv("PATH");
    absl::StatusOr<std::vector<std::string>> prefix =
        EmulatorExecPrefix(emulation, options.sandbox_emulator, sysroot, options.memory_limit_mb,
                           path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
    if (!prefix.ok()) {
      absl::FPrintF(stderr, "%s: %s\n", program, prefix.status().message());
      return kServerExitFailure;
    }
    sandbox.exec_prefix = *std::move(prefix);
    absl::PrintF("%s: running emulated: %s under qemu-user on %s (%s); sandbox child: %s %s\n",
                 program, emulation.arch, emulation.cpuinfo_family, emulation.host_cpu_model,
                 absl::StrJoin(sandbox.exec_prefix, " "), options.sandbox);
    std::fflush(stdout);
  }
  const bool emulated_memory_limit =
      !sandbox.exec_prefix.empty() && absl::StrContains(sandbox.exec_prefix.front(), "prlimit");
  absl::StatusOr<std::unique_ptr<DeviceBackend>> backend =
      CreateDeviceBackend(*device, std::move(sandbox));
  if (!backend.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", program, backend.status().message());
    return kServerExitFailure;
  }
  // One calibration before registering: it starts the sandbox child (a child that cannot
  // start or confine itself fails here, not on the first request) and tells which
  // confinement is in force.
  if (const auto* cpu = dynamic_cast<const CpuBackend*>(backend->get())) {
    absl::StatusOr<double> noise = (*backend)->MeasureNoise();
    if (!noise.ok()) {
      absl::FPrintF(stderr, "%s: the sandbox child failed its first calibration: %s\n", program,
                    noise.status().message());
      return kServerExitFailure;
    }
    absl::PrintF("%s: sandbox: %s; calibration noise %.2f%%\n", program,
                 DescribeConfinement(cpu->sandbox().confinement(), emulation.emulated,
                                     emulated_memory_limit),
                 100.0 * *noise);
    std::fflush(stdout);
  }
  v1::DeviceDescription hardware;
  (*backend)->Describe(&hardware);
  WorkerOptions worker = options.worker;
  if (worker.target.empty()) {
    worker.target = device->is_cuda() ? absl::StrCat("cuda -arch=", hardware.gpu_arch())
                                      : DefaultCpuTarget(emulation.arch);
  }
  std::string detail = device->ToString();
  if (!hardware.gpu_name().empty()) {
    absl::StrAppend(&detail, ": ", hardware.gpu_name(), ", ", hardware.gpu_arch());
  } else if (emulation.emulated) {
    absl::StrAppend(&detail, ": ", hardware.cpu_model());
  }
  return ServeWorker(program, worker, *std::move(backend), detail);
}

int ServeWorker(absl::string_view program, const WorkerOptions& options,
                std::unique_ptr<DeviceBackend> backend, absl::string_view detail) {
  absl::StatusOr<std::unique_ptr<Worker>> worker = Worker::Create(options, std::move(backend));
  if (!worker.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", program, worker.status().ToString());
    return kServerExitFailure;
  }
  absl::PrintF("%s %s (key %s, %s) dialling %s\n", program, (*worker)->worker_id(), options.key,
               detail, options.tracker_address);
  std::fflush(stdout);
  Worker* w = worker->get();
  std::thread signals([w] {
    WaitForTerminationSignal();
    w->Stop();
  });
  signals.detach();  // blocked in sigwait; the process exits when Run returns
  absl::Status status = w->Run();
  absl::PrintF("%s: stopped after %d measurements\n", program, w->completed());
  if (!status.ok()) {
    absl::FPrintF(stderr, "%s: %s\n", program, status.ToString());
    return kServerExitFailure;
  }
  return kServerExitOk;
}

}  // namespace tunefarm
