// Shared by the tuning benchmarks: tune one workload on the embedded local farm with a given
// strategy and budget, then rebuild its best config in this process for side-by-side timing.
#ifndef TUNEFARM_BENCH_TUNE_COMMON_H_
#define TUNEFARM_BENCH_TUNE_COMMON_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/loaded_library.h"
#include "compiler/abi/kernel_abi.h"
#include "compiler/codegen/build.h"
#include "compiler/runtime/ndarray.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::bench {

struct TunedKernel {
  tuner::TuneResult result;
  tuner::TuneTask task;
  LoadedLibrary lib;
  TfKernelFn fn = nullptr;
  // Kernel arguments, inputs filled with random values (a weight packed ahead of time is
  // there in its packed layout, made by the config's pack function).
  std::vector<runtime::NDArray> args;
};

struct TuneBenchOptions {
  int trials = 1000;
  int batch = 16;
  std::string strategy = "xgb";
  // OpenMP threads of each measured kernel; also the worker count is cores / threads.
  int threads = 1;
  uint64_t seed = 0;
};

// The device key of the benchmarks' local farms; tasks for TuneTaskAndLoad use it.
inline constexpr char kBenchDeviceKey[] = "cpu-bench";

// Tunes `template_name` with `args` on a fresh local farm (no tuning log), then builds
// the winner's shared library here and loads it as the farm's workers did (loaded_library.h).
// Prints one progress line per round to stderr.
absl::StatusOr<TunedKernel> TuneAndLoad(const std::string& template_name,
                                        const std::vector<int64_t>& args,
                                        const TuneBenchOptions& options);
// The same for any task (a program, a generated space) made for kBenchDeviceKey.
absl::StatusOr<TunedKernel> TuneTaskAndLoad(const tuner::TuneTask& task,
                                            const TuneBenchOptions& options);

// A call of the tuned kernel on its arguments (`k` must outlive it).
std::function<void()> KernelCall(TunedKernel& k);

// Median seconds of the kernel over `repeats` calls (after a warm-up call).
double TimeKernel(TunedKernel& k, int repeats);

// Bytes the kernel must move at least: every argument once.
double ArgBytes(const TunedKernel& k);

// The text of examples/programs/NAME.te, read from the working directory or, under `bazel run`,
// the workspace; "" when neither has it.
std::string ReadExampleProgram(const std::string& name);

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_TUNE_COMMON_H_
