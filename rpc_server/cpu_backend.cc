#include "rpc_server/cpu_backend.h"

#include <unistd.h>

#include "rpc_server/cost_stats.h"
#include "rpc_server/emulation.h"

namespace tunefarm {
namespace {

// Slack on top of the request's timeout for the child's start-up and dlopen.
constexpr absl::Duration kSpawnSlack = absl::Milliseconds(500);
constexpr int kCalibrationRepeats = 30;

}  // namespace

void CpuBackend::Describe(v1::DeviceDescription* device) const {
  const EmulationInfo emulation = DetectHostEmulation();
  device->set_arch(emulation.arch);
  device->set_emulated(emulation.emulated);
  // Real hardware: HostCpuModel() ("model name", else "unknown": a board's fingerprint in the
  // tuning log). Emulated: "emulated aarch64 (qemu-user on <host model>)", never the host's
  // model alone.
  device->set_cpu_model(ReportedCpuModel(emulation));
  device->set_cores(static_cast<int32_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  device->set_memory_bytes(static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE));
}

v1::MeasureResult CpuBackend::Measure(const v1::MeasureRequest& request,
                                      const std::string& artifact_path,
                                      const std::string& reference_path) {
  return MeasureInSandbox(sandbox_, request, artifact_path, reference_path, kSpawnSlack);
}

absl::StatusOr<double> CpuBackend::MeasureNoise() {
  absl::StatusOr<std::vector<double>> costs =
      sandbox_.Calibrate(kCalibrationRepeats, absl::Seconds(10));
  if (!costs.ok()) return costs.status();
  return RobustCv(*costs);
}

}  // namespace tunefarm
