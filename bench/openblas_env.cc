#include "bench/openblas_env.h"

#include <cblas.h>
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tunefarm::bench {
namespace {

// Set in the re-executed process, so a setting the libraries or glibc ignore cannot loop.
constexpr char kReexecMarker[] = "TUNEFARM_BENCH_OPENBLAS_REEXEC";
// glibc (2.35 and later) advises every block it maps onto transparent huge pages.
constexpr char kHugePageTunable[] = "glibc.malloc.hugetlb=1";

// Whether OpenBLAS's kernels for `core` (as openblas_get_corename names them) are at least
// those of `best` (BestOpenBlasCoreType): its later x86 core types reuse the earlier ones'
// single-precision kernels.
bool RunsAtLeast(const std::string& core, const std::string& best) {
  static const char* const kAvx512[] = {"skylakex", "cooperlake", "sapphirerapids"};
  static const char* const kAvx2[] = {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"};
  auto in = [&core](const auto& names) {
    for (const char* n : names) {
      if (strcasecmp(core.c_str(), n) == 0) return true;
    }
    return false;
  };
  if (strcasecmp(best.c_str(), "SkylakeX") == 0) return in(kAvx512);
  if (strcasecmp(best.c_str(), "Haswell") == 0) return in(kAvx2);
  return true;
}

// Whether a GLIBC_TUNABLES value (or nullptr) holds the huge-page tunable.
bool HoldsHugePageTunable(const char* tunables) {
  return tunables != nullptr && std::strstr(tunables, kHugePageTunable) != nullptr;
}

}  // namespace

std::string BestOpenBlasCoreType() {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    return "SkylakeX";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return "";
}

bool MallocOnHugePages() { return HoldsHugePageTunable(std::getenv("GLIBC_TUNABLES")); }

std::vector<EnvChange> LibraryEnvChanges(const std::function<const char*(const char*)>& get,
                                         const std::string& loaded_core) {
  std::vector<EnvChange> out;
  const char* current = get("OPENBLAS_CORETYPE");
  const std::string best = BestOpenBlasCoreType();
  // Set where the environment names a weaker core type, and, where it names none, where
  // OpenBLAS's own detection chose weaker kernels (a CPU model newer than the library: an Intel
  // Xeon of family 6, model 207, got its SSE3 "Prescott" kernels from OpenBLAS 0.3.21).
  if (!best.empty() && !RunsAtLeast(current != nullptr ? current : loaded_core, best)) {
    out.push_back({"OPENBLAS_CORETYPE", best,
                   std::string("was ") + (current != nullptr ? current : "unset") +
                       " (OpenBLAS's kernels: " + loaded_core + "); " + best +
                       " runs this core's best kernels"});
  }
  const char* tunables = get("GLIBC_TUNABLES");
  if (!HoldsHugePageTunable(tunables)) {
    out.push_back({"GLIBC_TUNABLES",
                   tunables != nullptr && *tunables != '\0'
                       ? std::string(tunables) + ":" + kHugePageTunable
                       : std::string(kHugePageTunable),
                   "the libraries' buffers of 2 MiB or more on huge pages, as ours"});
  }
  if (get("OPENBLAS_THREAD_TIMEOUT") == nullptr) {
    out.push_back({"OPENBLAS_THREAD_TIMEOUT", "4",
                   "OpenBLAS's idle worker threads asleep instead of spinning on the cores the "
                   "next kernel runs on"});
  }
  return out;
}

void ReexecWithLibrariesAtTheirBest(char** argv) {
  if (std::getenv(kReexecMarker) != nullptr) return;
  const std::vector<EnvChange> changes =
      LibraryEnvChanges([](const char* name) { return std::getenv(name); }, OpenBlasCoreName());
  if (changes.empty()) return;
  for (const EnvChange& c : changes) {
    std::fprintf(stderr, "re-executing with %s=%s: %s\n", c.name.c_str(), c.value.c_str(),
                 c.why.c_str());
    setenv(c.name.c_str(), c.value.c_str(), 1);
  }
  setenv(kReexecMarker, "1", 1);
  execv("/proc/self/exe", argv);
  std::fprintf(stderr,
               "re-exec failed (%s); the libraries keep OpenBLAS's %s kernels and small pages\n",
               std::strerror(errno), OpenBlasCoreName().c_str());
}

std::string OpenBlasCoreName() {
  const char* name = openblas_get_corename();
  return name != nullptr ? name : "unknown";
}

}  // namespace tunefarm::bench
