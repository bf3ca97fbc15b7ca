// OpenBLAS at its best on this core. OpenBLAS picks its kernels once, when the library loads,
// from OPENBLAS_CORETYPE if set: these machines set it to Haswell (AVX2) for old builds, while
// the cores have AVX-512, so a benchmark that kept the environment would measure OpenBLAS on
// half-width kernels. The benchmark re-executes itself with the core type this CPU deserves;
// tests and CI keep the environment as it is.
#ifndef TUNEFARM_BENCH_OPENBLAS_ENV_H_
#define TUNEFARM_BENCH_OPENBLAS_ENV_H_

#include <string>

namespace tunefarm::bench {

// The OpenBLAS core type that runs this CPU's widest kernels: "SkylakeX" with AVX-512, else
// "Haswell" with AVX2, else "" (let OpenBLAS detect).
std::string BestOpenBlasCoreType();

// If OPENBLAS_CORETYPE is set to anything but BestOpenBlasCoreType(), sets it and re-executes
// this program (/proc/self/exe) with the same arguments, once; returns only when no re-exec
// was needed, or when it failed (then with a warning on stderr, and the benchmark goes on with
// the kernels it has, which OpenBlasCoreName() reports).
void ReexecWithBestOpenBlasCore(char** argv);

// The kernels OpenBLAS actually loaded, e.g. "SkylakeX" (openblas_get_corename).
std::string OpenBlasCoreName();

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_OPENBLAS_ENV_H_
