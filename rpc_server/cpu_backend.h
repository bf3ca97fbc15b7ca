// The CPU device backend: host-memory kernels measured in a sandbox child process.
#ifndef TUNEFARM_RPC_SERVER_CPU_BACKEND_H_
#define TUNEFARM_RPC_SERVER_CPU_BACKEND_H_

#include <memory>
#include <string>

#include "rpc_server/device_backend.h"
#include "rpc_server/sandbox_process.h"

namespace tunefarm {

class CpuBackend final : public DeviceBackend {
 public:
  explicit CpuBackend(SandboxOptions options) : sandbox_(std::move(options)) {}

  // CPU model (from /proc/cpuinfo; under qemu-user "emulated ARCH (qemu-user on HOST MODEL)"),
  // machine (uname -m), whether emulated, online cores and physical memory.
  void Describe(v1::DeviceDescription* device) const override;
  v1::MeasureResult Measure(const v1::MeasureRequest& request, const std::string& artifact_path,
                            const std::string& reference_path) override;
  absl::StatusOr<double> MeasureNoise() override;

  const SandboxProcess& sandbox() const { return sandbox_; }

 private:
  SandboxProcess sandbox_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_CPU_BACKEND_H_
