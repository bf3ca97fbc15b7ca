// Which device a worker measures on, as the user writes it: "cpu" or "cuda:N" (the N-th CUDA
// device in the driver's order, as CUDA_VISIBLE_DEVICES leaves it). Used by `tunefarm server
// --device`, the embedded local farm and the sandbox child's command line.
#ifndef TUNEFARM_RPC_SERVER_DEVICE_SPEC_H_
#define TUNEFARM_RPC_SERVER_DEVICE_SPEC_H_

#include <functional>
#include <string>
#include <vector>

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

// The devices of a local farm: "cpu", "cuda:N", "cuda:N,M,..." (those GPUs) or "cuda:all"
// (every GPU the driver sees; `cuda_device_count` is asked only then). Errors: InvalidArgument
// (bad form, a GPU listed twice), or what `cuda_device_count` returns.
absl::StatusOr<std::vector<DeviceSpec>> ParseDeviceList(
    absl::string_view text, const std::function<absl::StatusOr<int>()>& cuda_device_count);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_DEVICE_SPEC_H_
