#include "rpc_server/device_spec.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tunefarm {

std::string DeviceSpec::ToString() const {
  return is_cuda() ? absl::StrCat("cuda:", ordinal) : "cpu";
}

absl::StatusOr<DeviceSpec> ParseDeviceSpec(absl::string_view text) {
  DeviceSpec spec;
  if (text == "cpu") return spec;
  absl::string_view ordinal = text;
  int n = -1;
  if (absl::ConsumePrefix(&ordinal, "cuda:") && !ordinal.empty() &&
      std::all_of(ordinal.begin(), ordinal.end(), absl::ascii_isdigit) &&
      absl::SimpleAtoi(ordinal, &n) && n >= 0) {
    spec.kind = DeviceSpec::Kind::kCuda;
    spec.ordinal = n;
    return spec;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("bad device '", text, "': expected 'cpu' or 'cuda:N' (e.g. cuda:0)"));
}

}  // namespace tunefarm
