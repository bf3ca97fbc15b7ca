// The device abstraction of a worker: what it measures on. The CPU backend (cpu_backend.h)
// runs kernels in a sandbox child; the CUDA backend (cuda_backend.h) does the same on a GPU
// with the driver API, and benchmarks use a no-op backend to measure the farm itself.
#ifndef TUNEFARM_RPC_SERVER_DEVICE_BACKEND_H_
#define TUNEFARM_RPC_SERVER_DEVICE_BACKEND_H_

#include <string>

#include "absl/status/statusor.h"
#include "proto/measure.pb.h"

namespace tunefarm {

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;

  // Fills in what this backend knows of its device (CPU model, cores, memory, GPU name).
  // The worker sets the key, target and labels from its options.
  virtual void Describe(v1::DeviceDescription* device) const = 0;

  // Measures `request` (artifact contents stripped) whose candidate and reference artifacts
  // are the local files given (`reference_path` empty when there is none). Always returns a
  // result; failures are error classes. Called from one thread at a time (from several only for a
  // worker whose WorkerOptions::parallel is above 1, e.g. a builder).
  virtual v1::MeasureResult Measure(const v1::MeasureRequest& request,
                                    const std::string& artifact_path,
                                    const std::string& reference_path) = 0;

  // Runs the fixed calibration kernel and returns its noise level (robust coefficient of
  // variation). Errors: Unavailable (the device could not run it).
  virtual absl::StatusOr<double> MeasureNoise() = 0;
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_DEVICE_BACKEND_H_
