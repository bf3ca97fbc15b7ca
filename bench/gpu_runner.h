// In-process GPU execution for the GPU benchmarks: the device's primary context (shared with
// cuBLAS), device buffers, PTX modules from tuned artifacts, and event timing of a launch
// sequence in the style of TVM's time_evaluator.
#ifndef TUNEFARM_BENCH_GPU_RUNNER_H_
#define TUNEFARM_BENCH_GPU_RUNNER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/gpu_module.pb.h"
#include "rpc_server/cuda_driver.h"

namespace tunefarm::bench {

class GpuRunner {
 public:
  // Loads the driver and makes device `ordinal`'s primary context current.
  // Unavailable: "no CUDA device: ..." (the benchmark then skips).
  static absl::StatusOr<std::unique_ptr<GpuRunner>> Create(int ordinal);
  ~GpuRunner();

  const CudaDeviceInfo& device() const { return info_; }

  // A device buffer freed with the runner.
  absl::StatusOr<CUdeviceptr> Alloc(size_t bytes);
  absl::Status Upload(CUdeviceptr dst, const void* src, size_t bytes);
  absl::Status Download(void* dst, CUdeviceptr src, size_t bytes);

  // Loads a tuned artifact (a serialized GpuModule) and returns a launcher over `params`
  // (device pointers in ABI order).
  absl::StatusOr<std::function<absl::Status()>> LoadKernel(const std::string& artifact,
                                                           std::vector<CUdeviceptr> params);

  // Median seconds of one `launch` over `repeats` repeats; each repeat times `number` launches
  // between two events, `number` grown until a repeat lasts at least `min_repeat_ms`.
  absl::StatusOr<double> Time(const std::function<absl::Status()>& launch, int repeats = 10,
                              double min_repeat_ms = 5);

 private:
  GpuRunner() = default;
  using ReleaseFn = CUresult (*)(CUdevice);
  CudaDriver* driver_ = nullptr;
  CudaDeviceInfo info_;
  CUdevice device_ = 0;
  ReleaseFn release_ = nullptr;  // cuDevicePrimaryCtxRelease_v2
  std::vector<CUdeviceptr> buffers_;
  std::vector<CUmodule> modules_;
};

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_GPU_RUNNER_H_
