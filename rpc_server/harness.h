// What the sandbox child does with one request for a CPU kernel: allocate and seed the
// tensors, obtain the reference outputs (host_reference.h), load the candidate, run it once on
// poisoned outputs, check it, then time it. Runs inside the sandbox process only: a crash here
// costs the sandbox, never the worker. The CUDA counterpart is cuda_harness.h.
#ifndef TUNEFARM_RPC_SERVER_HARNESS_H_
#define TUNEFARM_RPC_SERVER_HARNESS_H_

#include <cstdint>
#include <vector>

#include "proto/sandbox.pb.h"
#include "rpc_server/host_reference.h"

namespace tunefarm {

class Harness {
 public:
  // `max_tensor_bytes` bounds the tensors of one request.
  explicit Harness(int64_t max_tensor_bytes)
      : max_tensor_bytes_(max_tensor_bytes), reference_(max_tensor_bytes) {}

  // Measures one request. Never throws; every failure is an error class in the result.
  v1::MeasureResult Measure(const v1::SandboxMeasure& measure);

  // Runs the built-in calibration kernel `repeats` times; returns seconds per repeat.
  std::vector<double> Calibrate(int repeats);

 private:
  const int64_t max_tensor_bytes_;
  HostReference reference_;
};

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_HARNESS_H_
