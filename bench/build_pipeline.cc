// The artifact build before and after the build-time work of issue 18, config by config: does
// the tuner now build faster and give the same kernels?
//
//   bazel run -c opt //bench:build_pipeline -- [--quick]
//
// Before: the kernel's module in one piece, LLVM's O3, one object linked with the kernel
// runtime. Now: codegen::BuildSharedLibrary, which runs the kernel pipeline
// (compiler/codegen/opt_pipeline.h) on the module split per outlined loop nest
// (module_split.h), here with the object cache emptied before every build (cold: a tuning run
// reuses the parts its configs repeat, which bench:scale's build_ms_median includes). For
// configs spread over the spaces of several templates (dense square and small-M, NCHWc conv2d,
// depthwise conv2d, batch matmul, softmax), both libraries are built, loaded the way the
// farm's workers load them, and timed side by side on the same random inputs, one thread.
// Configs whose weights are packed ahead of time are skipped (their kernels need the pack run
// first; the loop nests are the same kind).
//
// speed = time of the old artifact's kernel / time of the new one's (above 1: the new one is
// faster). Ends with: RESULT build_ms_o3=... build_ms_kernel=... speed_geomean=...
// speed_worst=... configs=...
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/loaded_library.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/object_cache.h"
#include "compiler/runtime/ndarray.h"
#include "tuner/tuning/builder.h"
#include "tuner/tuning/task.h"

extern "C" void omp_set_num_threads(int);

namespace tunefarm::bench {
namespace {

struct Case {
  const char* label;
  const char* tmpl;
  std::vector<int64_t> args;
};

struct Row {
  std::string label;
  int configs = 0;
  std::vector<double> build_o3_ms, build_kernel_ms, speed;
  std::vector<int64_t> index;
};

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

double GeoMean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  return std::exp(log_sum / static_cast<double>(v.size()));
}

// The artifact as it was built before: one module, O3, one object linked with the runtime.
absl::StatusOr<std::string> OneModuleO3Library(const std::vector<lower::LoweredFunc>& funcs,
                                               const codegen::Target& target) {
  auto obj = codegen::BuildObject(funcs, target, codegen::OptPipeline::kO3);
  if (!obj.ok()) return obj.status();
  auto runtime = codegen::KernelRuntimeObject(target);
  if (!runtime.ok()) return runtime.status();
  return codegen::LinkLibrary({*obj, *runtime}, target);
}

// One config: both builds timed, both kernels timed side by side. False when the config does
// not lower or build (skipped, as the tuner would record a build error).
bool CompareConfig(const tuner::TuneTask& task, int64_t index, int repeats, Row& row) {
  auto lowered = tuner::LowerConfig(task, index);
  if (!lowered.ok() || !lowered->packs.empty()) return false;
  const std::vector<lower::LoweredFunc> funcs = {lowered->kernel};
  auto t0 = std::chrono::steady_clock::now();
  auto so_o3 = OneModuleO3Library(funcs, task.target);
  auto t1 = std::chrono::steady_clock::now();
  codegen::ObjectCache::Process().Clear();
  auto t2 = std::chrono::steady_clock::now();
  auto so_kernel = codegen::BuildSharedLibrary(funcs, task.target);
  auto t3 = std::chrono::steady_clock::now();
  if (!so_o3.ok() || !so_kernel.ok()) return false;
  auto lib_o3 = LoadedLibrary::Load(*so_o3);
  auto lib_kernel = LoadedLibrary::Load(*so_kernel);
  if (!lib_o3.ok() || !lib_kernel.ok()) return false;
  auto fn_o3 = lib_o3->Kernel(lowered->kernel.name);
  auto fn_kernel = lib_kernel->Kernel(lowered->kernel.name);
  if (!fn_o3.ok() || !fn_kernel.ok()) return false;
  std::vector<runtime::NDArray> args;
  std::vector<runtime::NDArray*> ptrs;
  for (size_t i = 0; i < lowered->kernel.args.size(); ++i) {
    const lower::FuncArg& a = lowered->kernel.args[i];
    auto array = runtime::NDArray::Empty(a.shape, a.buffer->dtype);
    if (!array.ok()) return false;
    array->FillRandom(static_cast<uint64_t>(i + 1));
    args.push_back(std::move(*array));
  }
  for (runtime::NDArray& a : args) ptrs.push_back(&a);
  // Both compute the same result (checked once: relative error within float rounding).
  if (!runtime::Call(*fn_o3, ptrs).ok()) return false;
  auto out_o3 = runtime::NDArray::Empty(args.back().shape(), args.back().dtype());
  if (!out_o3.ok()) return false;
  std::memcpy(out_o3->raw(), args.back().raw(), static_cast<size_t>(args.back().bytes()));
  if (!runtime::Call(*fn_kernel, ptrs).ok()) return false;
  if (runtime::MaxRelError(args.back(), *out_o3, 1e-4, 1e-4) > 1) {
    std::fprintf(stderr, "%s config %lld: the two pipelines' kernels disagree\n", row.label.c_str(),
                 static_cast<long long>(index));
    return false;
  }
  const SidePair t = TimeSideBySide([&] { (void)runtime::Call(*fn_o3, ptrs); },
                                    [&] { (void)runtime::Call(*fn_kernel, ptrs); }, repeats);
  row.build_o3_ms.push_back(Ms(t1 - t0));
  row.build_kernel_ms.push_back(Ms(t3 - t2));
  row.speed.push_back(1 / t.b_over_a);
  row.index.push_back(index);
  ++row.configs;
  return true;
}

}  // namespace

int Run(bool quick) {
  omp_set_num_threads(1);
  const std::vector<Case> cases = {
      {"dense 256^3", "dense", {256, 256, 256}},
      {"dense 49x512x4608", "dense", {49, 512, 4608}},
      {"conv2d NCHWc 64@56 3x3", "conv2d_nchwc", {1, 64, 56, 56, 64, 3, 3, 1, 1}},
      {"depthwise 144@56 3x3", "depthwise_conv2d", {1, 144, 56, 56, 3, 3, 1, 1}},
      {"batch matmul 12x128x64x128", "batch_matmul", {12, 128, 64, 128}},
      {"softmax 128x512", "softmax", {128, 512}},
  };
  const int per_case = quick ? 3 : 12;
  const int repeats = quick ? 5 : 15;
  std::printf("%-28s %7s %12s %12s %9s %9s\n", "workload", "configs", "before ms", "now ms",
              "speed gm", "worst");
  std::vector<double> all_o3, all_kernel, all_speed;
  int configs = 0;
  for (const Case& c : cases) {
    auto task = tuner::MakeTask(c.tmpl, c.args, "float32", "llvm", "bench");
    if (!task.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.label, task.status().ToString().c_str());
      return 1;
    }
    Row row;
    row.label = c.label;
    const int64_t size = task->space->size();
    // Spread over the space (a prime stride), trying a few more when a config is skipped.
    for (int64_t i = 0; i < 4 * per_case && row.configs < per_case; ++i) {
      CompareConfig(*task, (i * 7919 + 13) % size, repeats, row);
    }
    if (row.configs == 0) {
      std::printf("%-28s %7d (no config without packed weights built)\n", c.label, 0);
      continue;
    }
    const size_t worst = static_cast<size_t>(std::min_element(row.speed.begin(), row.speed.end()) -
                                             row.speed.begin());
    std::printf("%-28s %7d %12.1f %12.1f %9.3f %9.3f (config %lld)\n", c.label, row.configs,
                Median(row.build_o3_ms), Median(row.build_kernel_ms), GeoMean(row.speed),
                row.speed[worst], static_cast<long long>(row.index[worst]));
    // A loss past noise is timed once more (built again too), so that a reader can tell the
    // machine's noise from a slower kernel; the tables keep the first measurement.
    if (row.speed[worst] < 0.9) {
      Row again;
      if (CompareConfig(*task, row.index[worst], repeats, again)) {
        std::printf("%-28s %7s config %lld timed again: %.3f\n", "", "",
                    static_cast<long long>(row.index[worst]), again.speed[0]);
      }
    }
    all_o3.insert(all_o3.end(), row.build_o3_ms.begin(), row.build_o3_ms.end());
    all_kernel.insert(all_kernel.end(), row.build_kernel_ms.begin(), row.build_kernel_ms.end());
    all_speed.insert(all_speed.end(), row.speed.begin(), row.speed.end());
    configs += row.configs;
  }
  if (all_speed.empty()) return 1;
  std::printf(
      "(build: medians of building the library, before (one module, O3) and now (split, kernel "
      "pipeline, empty object cache); speed: kernel time before / now, geometric mean and worst "
      "config)\n");
  PrintResult({{"build_ms_o3", Fixed(Median(all_o3), 1)},
               {"build_ms_kernel", Fixed(Median(all_kernel), 1)},
               {"speed_geomean", Fixed(GeoMean(all_speed))},
               {"speed_worst", Fixed(*std::min_element(all_speed.begin(), all_speed.end()))},
               {"configs", std::to_string(configs)}});
  return 0;
}

}  // namespace tunefarm::bench

int main(int argc, char** argv) {
  return tunefarm::bench::Run(tunefarm::bench::QuickMode(argc, argv));
}
