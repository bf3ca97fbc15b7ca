#include "rpc_server/device_spec.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
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

absl::StatusOr<std::vector<DeviceSpec>> ParseDeviceList(
    absl::string_view text, const std::function<absl::StatusOr<int>()>& cuda_device_count) {
  std::vector<DeviceSpec> out;
  if (text == "cuda:all") {
    absl::StatusOr<int> count = cuda_device_count();
    if (!count.ok()) return count.status();
    for (int i = 0; i < *count; ++i) out.push_back(DeviceSpec{DeviceSpec::Kind::kCuda, i});
    return out;
  }
  absl::string_view rest = text;
  if (absl::ConsumePrefix(&rest, "cuda:")) {
    for (absl::string_view n : absl::StrSplit(rest, ',')) {
      absl::StatusOr<DeviceSpec> spec = ParseDeviceSpec(absl::StrCat("cuda:", n));
      if (!spec.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "bad device list '", text, "': expected cpu, cuda:N, cuda:N,M,... or cuda:all"));
      }
      for (const DeviceSpec& d : out) {
        if (d.ordinal == spec->ordinal) {
          return absl::InvalidArgumentError(
              absl::StrCat("bad device list '", text, "': cuda:", d.ordinal, " is listed twice"));
        }
      }
      out.push_back(*spec);
    }
    return out;
  }
  absl::StatusOr<DeviceSpec> spec = ParseDeviceSpec(text);
  if (!spec.ok()) return spec.status();
  return std::vector<DeviceSpec>{*spec};
}

}  // namespace tunefarm
