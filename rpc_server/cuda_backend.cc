#include "rpc_server/cuda_backend.h"

#include "absl/strings/str_cat.h"
#include "rpc_server/cost_stats.h"

namespace tunefarm {
namespace {

// Slack on top of the request's timeout for the child's start-up: loading the driver and
// creating a context take up to a few seconds on a cold GPU.
constexpr absl::Duration kStartupSlack = absl::Seconds(5);
constexpr int kCalibrationRepeats = 30;
// The calibration includes the child's start-up when it runs first.
constexpr absl::Duration kCalibrationTimeout = absl::Seconds(20);

}  // namespace

absl::StatusOr<std::unique_ptr<CudaBackend>> CudaBackend::Create(SandboxOptions options,
                                                                 int device_ordinal) {
  absl::StatusOr<CudaDriver*> driver = CudaDriver::Load();
  if (!driver.ok()) return driver.status();
  absl::StatusOr<CudaDeviceInfo> info = (*driver)->DeviceInfo(device_ordinal);
  if (!info.ok()) {
    return absl::IsOutOfRange(info.status()) ? absl::UnavailableError(info.status().message())
                                             : info.status();
  }
  options.device = absl::StrCat("cuda:", device_ordinal);
  return std::unique_ptr<CudaBackend>(
      new CudaBackend(std::move(options), *std::move(info), (*driver)->DriverVersion()));
}

void CudaBackend::Describe(v1::DeviceDescription* device) const {
  device->set_gpu_name(info_.name);
  device->set_gpu_arch(info_.Arch());
  device->set_gpu_multiprocessors(info_.multiprocessors);
  device->set_gpu_l2_bytes(info_.l2_bytes);
  device->set_memory_bytes(info_.memory_bytes);
  device->set_cuda_driver_version(driver_version_);
}

v1::MeasureResult CudaBackend::Measure(const v1::MeasureRequest& request,
                                       const std::string& artifact_path,
                                       const std::string& reference_path) {
  return MeasureInSandbox(sandbox_, request, artifact_path, reference_path, kStartupSlack);
}

absl::StatusOr<double> CudaBackend::MeasureNoise() {
  absl::StatusOr<std::vector<double>> costs =
      sandbox_.Calibrate(kCalibrationRepeats, kCalibrationTimeout);
  if (!costs.ok()) return costs.status();
  if (costs->empty()) return absl::UnavailableError("GPU calibration returned no costs");
  return RobustCv(*costs);
}

}  // namespace tunefarm
