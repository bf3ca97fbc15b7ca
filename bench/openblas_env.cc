#include "bench/openblas_env.h"

#include <cblas.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tunefarm::bench {
namespace {

// Set in the re-executed process, so a core type OpenBLAS ignores cannot loop.
constexpr char kReexecMarker[] = "TUNEFARM_BENCH_OPENBLAS_REEXEC";

}  // namespace

std::string BestOpenBlasCoreType() {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    return "SkylakeX";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return "";
}

void ReexecWithBestOpenBlasCore(char** argv) {
  const char* current = std::getenv("OPENBLAS_CORETYPE");
  const std::string best = BestOpenBlasCoreType();
  if (current == nullptr || best.empty() || best == current) return;
  if (std::getenv(kReexecMarker) != nullptr) return;
  std::fprintf(stderr, "OPENBLAS_CORETYPE=%s: re-executing with %s, this core's best kernels\n",
               current, best.c_str());
  setenv("OPENBLAS_CORETYPE", best.c_str(), 1);
  setenv(kReexecMarker, "1", 1);
  execv("/proc/self/exe", argv);
  std::fprintf(stderr, "re-exec failed (%s); OpenBLAS keeps its %s kernels\n", std::strerror(errno),
               current);
}

std::string OpenBlasCoreName() {
  const char* name = openblas_get_corename();
  return name != nullptr ? name : "unknown";
}

}  // namespace tunefarm::bench
