#include "common/host_cpu.h"

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"

namespace tunefarm {

std::string HostCpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::string fallback = "unknown";
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    if (absl::StartsWith(line, "model name")) return value;
    if (fallback == "unknown" &&
        (absl::StartsWith(line, "Hardware") || absl::StartsWith(line, "CPU part"))) {
      fallback = value;
    }
  }
  return fallback;
}

}  // namespace tunefarm
