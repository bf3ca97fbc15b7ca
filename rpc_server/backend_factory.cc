#include "rpc_server/backend_factory.h"

#include "rpc_server/cpu_backend.h"
#include "rpc_server/cuda_backend.h"

namespace tunefarm {

absl::StatusOr<std::unique_ptr<DeviceBackend>> CreateDeviceBackend(const DeviceSpec& device,
                                                                   SandboxOptions options) {
  if (!device.is_cuda()) {
    options.device = "cpu";
    return std::make_unique<CpuBackend>(std::move(options));
  }
  absl::StatusOr<std::unique_ptr<CudaBackend>> cuda =
      CudaBackend::Create(std::move(options), device.ordinal);
  if (!cuda.ok()) return cuda.status();
  return std::unique_ptr<DeviceBackend>(std::move(*cuda));
}

}  // namespace tunefarm
