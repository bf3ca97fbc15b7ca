#include "bench/openblas_env.h"

#include <cblas.h>
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

}  // namespace

std::string BestOpenBlasCoreType() {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    return "SkylakeX";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return "";
}

bool MallocOnHugePages() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables != nullptr && std::strstr(tunables, kHugePageTunable) != nullptr;
}

void ReexecWithLibrariesAtTheirBest(char** argv) {
  const char* current = std::getenv("OPENBLAS_CORETYPE");
  const std::string best = BestOpenBlasCoreType();
  const bool set_core = current != nullptr && !best.empty() && best != current;
  if ((!set_core && MallocOnHugePages()) || std::getenv(kReexecMarker) != nullptr) return;
  if (set_core) {
    std::fprintf(stderr, "OPENBLAS_CORETYPE=%s: re-executing with %s, this core's best kernels\n",
                 current, best.c_str());
    setenv("OPENBLAS_CORETYPE", best.c_str(), 1);
  }
  if (!MallocOnHugePages()) {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    const std::string all = tunables != nullptr && *tunables != '\0'
                                ? std::string(tunables) + ":" + kHugePageTunable
                                : std::string(kHugePageTunable);
    setenv("GLIBC_TUNABLES", all.c_str(), 1);
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
