#include "rpc_server/sandbox_environment.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace tunefarm {
namespace {

constexpr absl::string_view kAllowedNames[] = {
    "PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "LD_LIBRARY_PATH", "TUNEFARM_LIBCUDA",
};
constexpr absl::string_view kAllowedPrefixes[] = {"OMP_", "GOMP_", "CUDA_"};

bool Allowed(absl::string_view name) {
  for (absl::string_view allowed : kAllowedNames) {
    if (name == allowed) return true;
  }
  for (absl::string_view prefix : kAllowedPrefixes) {
    if (absl::StartsWith(name, prefix)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> SandboxEnvironment(char* const* environ, int kernel_threads) {
  std::vector<std::string> out;
  for (char* const* e = environ; e != nullptr && *e != nullptr; ++e) {
    absl::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == absl::string_view::npos) continue;
    absl::string_view name = entry.substr(0, eq);
    if (kernel_threads > 0 && name == "OMP_NUM_THREADS") continue;
    if (Allowed(name)) out.emplace_back(entry);
  }
  if (kernel_threads > 0) out.push_back(absl::StrCat("OMP_NUM_THREADS=", kernel_threads));
  return out;
}

}  // namespace tunefarm
