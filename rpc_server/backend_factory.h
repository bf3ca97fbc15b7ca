// The backend a worker measures with, chosen by its device spec ("cpu" or "cuda:N").
#ifndef TUNEFARM_RPC_SERVER_BACKEND_FACTORY_H_
#define TUNEFARM_RPC_SERVER_BACKEND_FACTORY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "rpc_server/device_backend.h"
#include "rpc_server/device_spec.h"
#include "rpc_server/sandbox_process.h"

namespace tunefarm {

// A CpuBackend for "cpu", a CudaBackend for "cuda:N", each with sandbox children started with
// `options`. Errors: as CudaBackend::Create (Unavailable "no CUDA device: ...").
absl::StatusOr<std::unique_ptr<DeviceBackend>> CreateDeviceBackend(const DeviceSpec& device,
                                                                   SandboxOptions options);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_BACKEND_FACTORY_H_
