// What the sandbox child does with one request for a CUDA kernel (`tunefarm_sandbox MB
// cuda:N`). Running inside the child means a kernel fault, which leaves the CUDA context
// unusable for good (a "sticky" error such as CUDA_ERROR_ILLEGAL_ADDRESS), costs only the
// child: the harness reports it, the child exits, the worker starts a fresh one.
//
// Per request:
//   1. read the artifact as a GpuModule (proto/gpu_module.proto)        -> LOAD_ERROR
//   2. check its launch against the device's limits                     -> INVALID_REQUEST
//   3. host tensors, inputs from the seed, expected outputs from the host reference artifact
//      or the reference sums (host_reference.h, shared with the CPU harness)
//   4. JIT the PTX (cuModuleLoadDataEx; the ptxas log comes back)       -> LOAD_ERROR
//   5. one device buffer per tensor; inputs and poisoned outputs copied host -> device
//   6. one launch (one CUdeviceptr parameter per tensor), synchronize   -> RUNTIME_ERROR
//   7. outputs copied back and compared                                  -> WRONG_ANSWER
//   8. a warm-up launch, then TVM time_evaluator-style timing with CUDA events around `number`
//      back-to-back launches per repeat (timing.h TimeRepeats: min_repeat_ms, repeat,
//      adaptive); with flush_cache, a cuMemsetD8Async over 2x the L2 size before each repeat,
//      outside the timed events.
#ifndef TUNEFARM_RPC_SERVER_CUDA_HARNESS_H_
#define TUNEFARM_RPC_SERVER_CUDA_HARNESS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/gpu_module.pb.h"
#include "proto/sandbox.pb.h"
#include "rpc_server/cuda_driver.h"
#include "rpc_server/host_reference.h"

namespace tunefarm {

// Parses the bytes of a GPU artifact and checks the fields a launch needs. A zero component
// of `grid` or `block` means 1 (CUDA's dim3 default). Errors: DataLoss (not a serialized
// GpuModule), InvalidArgument (no PTX, no entry, a negative dimension).
absl::StatusOr<v1::GpuModule> ParseGpuModule(absl::string_view bytes);

// Reads the file at `path` and parses it with ParseGpuModule. Errors: NotFound (no such
// file), Internal (read failed), and those of ParseGpuModule.
absl::StatusOr<v1::GpuModule> ReadGpuModule(const std::string& path);

// The compute capability of an architecture name: 90 for "sm_90" or "sm_90a", 0 for "".
// Errors: InvalidArgument (not of the form sm_<digits>[suffix]).
absl::StatusOr<int> ParseSmArch(absl::string_view arch);

// Checks a module's launch against a device: its architecture is not newer than the device's,
// each block and grid dimension and the threads per block are within the device's limits,
// and its static shared memory fits a block. Errors: InvalidArgument naming the limit.
absl::Status CheckLaunch(const v1::GpuModule& module, const CudaDeviceInfo& device);

// The PTX of the calibration kernel (entry "tunefarm_calibrate", one float* parameter):
// a chain of dependent FMAs per thread, about 0.1-1 ms per launch on current GPUs.
absl::string_view CalibrationPtx();

class CudaHarness {
 public:
  // Loads the driver and creates a context on CUDA device `ordinal` for the life of the
  // harness; `max_tensor_bytes` bounds the tensors of one request (host and device).
  // Errors: Unavailable ("no CUDA device: ..."), Internal (context or event creation failed).
  static absl::StatusOr<std::unique_ptr<CudaHarness>> Create(int ordinal, int64_t max_tensor_bytes);
  ~CudaHarness();
  CudaHarness(const CudaHarness&) = delete;
  CudaHarness& operator=(const CudaHarness&) = delete;

  // Measures one request (see the file comment). Never throws; every failure is an error
  // class in the result. After a sticky error, context_lost() is true.
  v1::MeasureResult Measure(const v1::SandboxMeasure& measure);

  // Times the calibration kernel `repeats` times (one launch per repeat, CUDA events) and
  // returns seconds per repeat. Errors: Internal (a CUDA call failed; see context_lost()).
  absl::StatusOr<std::vector<double>> Calibrate(int repeats);

  // True once a fault left the context unusable: the sandbox must answer the current request
  // and exit, so the next request runs in a fresh process with a fresh context.
  bool context_lost() const { return context_lost_; }

  const CudaDeviceInfo& device() const { return device_; }

 private:
  CudaHarness(CudaDriver* driver, CudaDeviceInfo device, int64_t max_tensor_bytes)
      : driver_(driver), device_(std::move(device)), reference_(max_tensor_bytes) {}

  // The RUNTIME_ERROR (OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY) of a failed CUDA call
  // "<what>: <name>: <description>"; probes the context and sets context_lost_ when the
  // error is sticky.
  v1::MeasureResult Failed(absl::string_view what, CUresult result);
  // Records the start event, calls `launch` `number` times on the default stream, records the
  // end event and waits for it; sets the GPU time per launch. Returns the first failure.
  CUresult TimeLaunches(const std::function<CUresult()>& launch, int64_t number,
                        double* seconds_per_launch);
  // Allocates (once) the L2 flush buffer. False when it cannot be allocated.
  bool EnsureFlushBuffer();

  CudaDriver* const driver_;
  const CudaDeviceInfo device_;
  HostReference reference_;
  CUcontext context_ = nullptr;
  CUevent start_ = nullptr;
  CUevent end_ = nullptr;
  // Scratch written between repeats to evict the L2 (2x its size), allocated on first use.
  CUdeviceptr flush_buffer_ = 0;
  size_t flush_bytes_ = 0;
  unsigned char flush_value_ = 0;
  // The calibration kernel, loaded on first use, and its output buffer.
  CUmodule calibration_module_ = nullptr;
  CUfunction calibration_kernel_ = nullptr;
  CUdeviceptr calibration_out_ = 0;
  bool context_lost_ = false;
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_CUDA_HARNESS_H_
