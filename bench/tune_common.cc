#include "bench/tune_common.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "compiler/lower/lower.h"
#include "farm/farm_setup.h"
#include "tuner/tuning/builder.h"
#include "tuner/tuning/strategy_factory.h"

extern "C" void omp_set_num_threads(int);

namespace tunefarm::bench {

absl::StatusOr<TunedKernel> TuneAndLoad(const std::string& template_name,
                                        const std::vector<int64_t>& args,
                                        const TuneBenchOptions& options) {
  auto task = tuner::MakeTask(template_name, args, "float32", "llvm", kBenchDeviceKey);
  if (!task.ok()) return task.status();
  return TuneTaskAndLoad(*task, options);
}

absl::StatusOr<TunedKernel> TuneTaskAndLoad(const tuner::TuneTask& tune_task,
                                            const TuneBenchOptions& options) {
  const tuner::TuneTask* task = &tune_task;
  const std::string template_name = task->workload.template_name;
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // The kernel timed in this process after tuning uses as many threads as the farm's did.
  omp_set_num_threads(options.threads);
  FarmSetupOptions fo;
  fo.key = kBenchDeviceKey;
  fo.threads_per_worker = options.threads;
  auto farm = StartFarm(fo);
  if (!farm.ok()) return farm.status();
  auto strategy = tuner::MakeStrategy(options.strategy, *task, options.seed, nullptr);
  if (!strategy.ok()) return strategy.status();
  tuner::TrackerMeasurerOptions mo;
  mo.job_id = absl::StrCat("bench-", template_name, "-", options.threads, "t");
  mo.device_key = fo.key;
  mo.timing.set_repeat(3);
  mo.timing.set_min_repeat_ms(10);
  tuner::TrackerMeasurer measurer((*farm)->client.get(), mo);
  tuner::TuneOptions to;
  to.trials = options.trials;
  to.batch_size = options.batch;
  to.build_threads = cores;
  // top_k and top_k_rounds keep the defaults `tunefarm tune` has (5 configs in 3 rounds), so the
  // winner is picked as a user's job picks it (3 configs until stop 70; docs/cpu_kernels.md,
  // run 44: the five did not change what decides the benchmark's bars).
  TunedKernel out;
  out.task = *task;
  auto result =
      tuner::Tune(*task, **strategy, measurer, nullptr, to, [&](const tuner::TuneProgress& p) {
        std::fprintf(stderr, "\r  %s %d/%d trials, best %.1f GFLOP/s   ", template_name.c_str(),
                     p.trials_done, p.trials_total, p.best_gflops);
      });
  std::fprintf(stderr, "\n");
  if (!result.ok()) return result.status();
  out.result = *result;
  if (result->best_index < 0) return absl::InternalError("no valid config found");
  auto lowered = tuner::LowerConfig(*task, result->best_index);
  if (!lowered.ok()) return lowered.status();
  const lower::LoweredFunc* f = &lowered->kernel;
  std::vector<lower::LoweredFunc> funcs = {*f};
  for (const tuner::LoweredPack& p : lowered->packs) funcs.push_back(p.func);
  // The shared library the farm measured (and `tunefarm export` ships), loaded as workers do.
  auto so = codegen::BuildSharedLibrary(funcs, task->target);
  if (!so.ok()) return so.status();
  auto lib = LoadedLibrary::Load(*so);
  if (!lib.ok()) return lib.status();
  out.lib = *lib;
  auto fn = out.lib.Kernel(tuner::kKernelName);
  if (!fn.ok()) return fn.status();
  out.fn = *fn;
  for (size_t i = 0; i < f->args.size(); ++i) {
    auto a = runtime::NDArray::Empty(f->args[i].shape, f->args[i].buffer->dtype);
    if (!a.ok()) return a.status();
    a->FillRandom(i + 1);
    out.args.push_back(std::move(*a));
  }
  // Weights packed ahead of time: packed once here, as a deployment does, and not timed.
  for (const tuner::LoweredPack& p : lowered->packs) {
    auto weight = runtime::NDArray::Empty(p.func.args[0].shape, p.func.args[0].buffer->dtype);
    if (!weight.ok()) return weight.status();
    weight->FillRandom(p.arg_index + 1);
    auto pack = out.lib.Kernel(p.func.name);
    if (!pack.ok()) return pack.status();
    if (absl::Status s = runtime::Call(*pack, {&*weight, &out.args[p.arg_index]}); !s.ok())
      return s;
  }
  return out;
}

std::function<void()> KernelCall(TunedKernel& k) {
  std::vector<runtime::NDArray*> ptrs;
  for (runtime::NDArray& a : k.args) ptrs.push_back(&a);
  return [fn = k.fn, ptrs] { (void)runtime::Call(fn, ptrs); };
}

double TimeKernel(TunedKernel& k, int repeats) { return TimeMedian(KernelCall(k), repeats); }

double ArgBytes(const TunedKernel& k) {
  double bytes = 0;
  for (const runtime::NDArray& a : k.args) {
    bytes += static_cast<double>(a.size()) * a.dtype().bytes();
  }
  return bytes;
}

std::string ReadExampleProgram(const std::string& name) {
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  for (const std::string& dir :
       {std::string("examples/programs/"),
        std::string(workspace ? workspace : ".") + "/examples/programs/"}) {
    std::ifstream in(dir + name + ".te");
    if (!in) continue;
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  return "";
}

}  // namespace tunefarm::bench
