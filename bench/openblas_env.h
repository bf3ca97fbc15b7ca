// OpenBLAS at its best on this core. OpenBLAS picks its kernels once, when the library loads,
// from OPENBLAS_CORETYPE if set: these machines set it to Haswell (AVX2) for old builds, while
// the cores have AVX-512, so a benchmark that kept the environment would measure OpenBLAS on
// half-width kernels. The benchmark re-executes itself with the core type this CPU deserves
// (with glibc's huge-page advice for the libraries' buffers, and with OpenBLAS's idle threads
// asleep between its calls); tests and CI keep the environment as it is.
#ifndef TUNEFARM_BENCH_OPENBLAS_ENV_H_
#define TUNEFARM_BENCH_OPENBLAS_ENV_H_

#include <functional>
#include <string>
#include <vector>

namespace tunefarm::bench {

// The OpenBLAS core type that runs this CPU's widest kernels: "SkylakeX" with AVX-512, else
// "Haswell" with AVX2, else "" (let OpenBLAS detect).
std::string BestOpenBlasCoreType();

// Whether glibc's malloc advises the blocks it maps onto transparent huge pages
// (GLIBC_TUNABLES holds glibc.malloc.hugetlb=1).
bool MallocOnHugePages();

// One variable of the environment to set, and why (printed on stderr when it is set).
struct EnvChange {
  std::string name, value, why;
};

// What the benchmark's environment lacks for the libraries to run at their best beside ours,
// given the current values (`get`, as getenv; `loaded_core`, the kernels OpenBLAS loaded):
//   - OPENBLAS_CORETYPE = BestOpenBlasCoreType(), where it names a weaker core type, or where it
//     is unset and OpenBLAS detected weaker kernels on its own (a CPU model the library does not
//     know gets its SSE3 kernels);
//   - glibc.malloc.hugetlb=1 added to GLIBC_TUNABLES, so that the libraries' own buffers
//     (oneDNN's reordered weights, OpenBLAS's operands) sit on huge pages as ours do
//     (common/aligned_allocator.h);
//   - OPENBLAS_THREAD_TIMEOUT = 4, where unset: OpenBLAS's worker threads otherwise spin for
//     2^28 cycles (about 0.1 s) after each multi-threaded call, on the cores the next kernel
//     timed in the same round then runs on (ours after OpenBLAS in one round, oneDNN's after it
//     in the next: on the two-thread rows that spread the per-round ratios and slowed the rounds
//     by a tenth); at 4 (2^4 cycles, OpenBLAS's least) they sleep until OpenBLAS's next call,
//     which wakes them (microseconds, against the milliseconds a two-thread row's call takes).
//     One-thread calls start no worker, so this changes nothing there.
std::vector<EnvChange> LibraryEnvChanges(const std::function<const char*(const char*)>& get,
                                         const std::string& loaded_core);

// Re-executes this program (/proc/self/exe) once with the same arguments and the environment
// LibraryEnvChanges(getenv, OpenBlasCoreName()) asks for, where it asks for any. Returns only
// when no re-exec was needed, or when it failed (then with a warning on stderr, and the
// benchmark goes on as it is, which OpenBlasCoreName() and MallocOnHugePages() report).
void ReexecWithLibrariesAtTheirBest(char** argv);

// The kernels OpenBLAS actually loaded, e.g. "SkylakeX" (openblas_get_corename).
std::string OpenBlasCoreName();

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_OPENBLAS_ENV_H_
