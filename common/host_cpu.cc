#include "common/host_cpu.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"

namespace tunefarm {

std::string ReadHostCpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string CpuinfoField(absl::string_view cpuinfo, absl::string_view key) {
  for (absl::string_view line : absl::StrSplit(cpuinfo, '\n')) {
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    if (absl::StripAsciiWhitespace(line.substr(0, colon)) == key) {
      return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    }
  }
  return "";
}

std::string CpuinfoModel(absl::string_view cpuinfo) {
  std::string model = CpuinfoField(cpuinfo, "model name");
  return model.empty() ? "unknown" : model;
}

std::string HostCpuModel() { return CpuinfoModel(ReadHostCpuinfo()); }

}  // namespace tunefarm
