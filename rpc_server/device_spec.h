// Which device a worker measures on, as the user writes it: "cpu" or "cuda:N" (the N-th CUDA
// device in the driver's order, as CUDA_VISIBLE_DEVICES leaves it). Used by `tunefarm server
// --device`, the embedded local farm and the sandbox child's command line.
#ifndef TUNEFARM_RPC_SERVER_DEVICE_SPEC_H_
#define TUNEFARM_RPC_SERVER_DEVICE_SPEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tunefarm {

struct DeviceSpec {
  enum class Kind { kCpu, kCuda };
  Kind kind = Kind::kCpu;
  // CUDA device ordinal (kCuda only).
  int ordinal = 0;

  bool is_cuda() const { return kind == Kind::kCuda; }
  // "cpu" or "cuda:N"; parses back to the same spec.
  std::string ToString() const;
};

// Parses "cpu" or "cuda:N" (N a non-negative decimal integer). Errors: InvalidArgument naming
// the accepted forms.
absl::StatusOr<DeviceSpec> ParseDeviceSpec(absl::string_view text);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_DEVICE_SPEC_H_
