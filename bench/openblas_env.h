// OpenBLAS at its best on this core. OpenBLAS picks its kernels once, when the library loads,
// from OPENBLAS_CORETYPE if set: these machines set it to Haswell (AVX2) for old builds, while
// the cores have AVX-512, so a benchmark that kept the environment would measure OpenBLAS on
// half-width kernels. The benchmark re-executes itself with the core type this CPU deserves
// (and with glibc's huge-page advice for the libraries' buffers); tests and CI keep the
// environment as it is.
#ifndef TUNEFARM_BENCH_OPENBLAS_ENV_H_
#define TUNEFARM_BENCH_OPENBLAS_ENV_H_

#include <string>

namespace tunefarm::bench {

// The OpenBLAS core type that runs this CPU's widest kernels: "SkylakeX" with AVX-512, else
// "Haswell" with AVX2, else "" (let OpenBLAS detect).
std::string BestOpenBlasCoreType();

// Whether glibc's malloc advises the blocks it maps onto transparent huge pages
// (GLIBC_TUNABLES holds glibc.malloc.hugetlb=1).
bool MallocOnHugePages();

// Re-executes this program (/proc/self/exe) once with the same arguments where the libraries
// would not run at their best: with OPENBLAS_CORETYPE set to BestOpenBlasCoreType() if it names
// a weaker core type, or if it is unset and OpenBLAS detected weaker kernels on its own (a CPU
// model the library does not know gets its SSE3 kernels), and with glibc.malloc.hugetlb=1 added to
// GLIBC_TUNABLES, so that the libraries' own buffers (oneDNN's reordered weights, OpenBLAS's
// operands) sit on huge pages as ours do (common/aligned_allocator.h). Returns only when no re-exec
// was needed, or when it failed (then with a warning on stderr, and the benchmark goes on as it is,
// which OpenBlasCoreName() and MallocOnHugePages() report).
void ReexecWithLibrariesAtTheirBest(char** argv);

// The kernels OpenBLAS actually loaded, e.g. "SkylakeX" (openblas_get_corename).
std::string OpenBlasCoreName();

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_OPENBLAS_ENV_H_
