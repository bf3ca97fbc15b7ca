// The CUDA device backend: GpuModule artifacts (proto/gpu_module.proto) measured on one GPU by
// a sandbox child started as `tunefarm_sandbox MB cuda:N` (cuda_harness.h). The worker
// process itself loads the driver only to describe the device; it never creates a context,
// so a kernel fault cannot reach it.
#ifndef TUNEFARM_RPC_SERVER_CUDA_BACKEND_H_
#define TUNEFARM_RPC_SERVER_CUDA_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "rpc_server/cuda_driver.h"
#include "rpc_server/device_backend.h"
#include "rpc_server/sandbox_process.h"

namespace tunefarm {

class CudaBackend final : public DeviceBackend {
 public:
  // A backend for CUDA device `device_ordinal` whose sandbox children run with `options`
  // (options.device is set to "cuda:<ordinal>"; memory_limit_mb bounds the tensors of one
  // request, there is no address-space limit). Errors: Unavailable "no CUDA device: ..."
  // (no libcuda.so.1, cuInit failed, no devices, ordinal out of range), Internal (a device
  // query failed).
  static absl::StatusOr<std::unique_ptr<CudaBackend>> Create(SandboxOptions options,
                                                             int device_ordinal);

  // GPU name, architecture ("sm_90"), device memory, SMs, L2 size, driver version.
  void Describe(v1::DeviceDescription* device) const override;
  v1::MeasureResult Measure(const v1::MeasureRequest& request, const std::string& artifact_path,
                            const std::string& reference_path) override;
  // Noise of the GPU calibration kernel (robust CV of 30 event-timed launches).
  absl::StatusOr<double> MeasureNoise() override;

  const CudaDeviceInfo& device() const { return info_; }
  const SandboxProcess& sandbox() const { return sandbox_; }

 private:
  CudaBackend(SandboxOptions options, CudaDeviceInfo info, int driver_version)
      : sandbox_(std::move(options)), info_(std::move(info)), driver_version_(driver_version) {}

  SandboxProcess sandbox_;
  const CudaDeviceInfo info_;
  const int driver_version_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_CUDA_BACKEND_H_
