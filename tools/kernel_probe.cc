// Builds and times chosen configs of a program's generated space (or a template's space) in
// this process, one line per config: lowering and compile time, the size of the lowered IR,
// the kernel's median time and GFLOP/s. For finding the configs that are slow to build or to
// run, and for reading their lowered IR.
//
//   bazel run -c opt //tools:kernel_probe -- --expr $PWD/examples/programs/max_pool.te
//       --shape N=1,C=64,H=112,W=112 --random 20 [--config 17,42] [--set knob=value,...] [--ir]
//       [--reference] [--artifact] [--library] [--spills]
//   bazel run -c opt //tools:kernel_probe -- --template_name dense --args 64,64,64 --random 5
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/loaded_library.h"
#include "compiler/codegen/build.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_util.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "tuner/tuning/builder.h"
#include "tuner/tuning/task.h"

ABSL_FLAG(std::string, expr, "", "a program file of the tensor-expression language");
ABSL_FLAG(std::string, shape, "", "the program's shape bindings, e.g. M=128,N=768");
ABSL_FLAG(std::string, template_name, "", "a registry template (or generated:<name>)");
ABSL_FLAG(std::string, args, "", "the template's shape arguments, e.g. 64,64,64");
ABSL_FLAG(std::string, target, "llvm", "the target");
ABSL_FLAG(std::vector<std::string>, config, {}, "config indices to build");
ABSL_FLAG(std::vector<std::string>, set, {},
          "knob=value pairs (a split's inner factor, another knob's value) applied to each "
          "--config index (or to config 0 without one), e.g. S.tile_j=64,Y.fuse_rows=6");
ABSL_FLAG(int, random, 0, "also build this many random configs");
ABSL_FLAG(uint64_t, seed, 1, "seed of the random configs");
ABSL_FLAG(bool, ir, false, "print each config's lowered IR");
ABSL_FLAG(bool, asm_out, false, "print each config's assembly");
ABSL_FLAG(bool, spills, false,
          "also print, per config, whether the space's constraints admit it and how many vector "
          "registers its kernel's assembly stores to the stack (spills)");
ABSL_FLAG(bool, passes, false, "print each config's IR after every lowering pass");
ABSL_FLAG(bool, reference, false, "also build the unscheduled reference program");
ABSL_FLAG(int, repeats, 20, "timed calls per kernel (the median is printed)");
ABSL_FLAG(bool, library, false,
          "time the kernel from the artifact the tuner builds for the farm (its shared library, "
          "written and dlopen'ed as bench::LoadedLibrary does) instead of from a JIT build");
ABSL_FLAG(bool, artifact, false,
          "also time each config's artifact build as the tuner's builders do it (lower, object, "
          "kernel runtime, link), printed as `artifact`, with the median at the end");

namespace tunefarm {
namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Median seconds of `repeats` calls of `fn`, after one warm-up call.
double MedianSeconds(const std::function<void()>& fn, int repeats) {
  fn();
  std::vector<double> t;
  for (int i = 0; i < std::max(1, repeats); ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    t.push_back(Seconds(start));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

absl::StatusOr<tuner::TuneTask> MakeProbeTask() {
  if (!absl::GetFlag(FLAGS_expr).empty()) {
    std::ifstream in(absl::GetFlag(FLAGS_expr));
    if (!in) return absl::NotFoundError("cannot read " + absl::GetFlag(FLAGS_expr));
    std::stringstream text;
    text << in.rdbuf();
    absl::flat_hash_map<std::string, int64_t> shapes;
    for (absl::string_view kv :
         absl::StrSplit(absl::GetFlag(FLAGS_shape), ',', absl::SkipEmpty())) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, '=');
      int64_t v = 0;
      if (!absl::SimpleAtoi(p.second, &v)) return absl::InvalidArgumentError("bad --shape");
      shapes[p.first] = v;
    }
    return tuner::MakeProgramTask("probe", text.str(), shapes, absl::GetFlag(FLAGS_target),
                                  "probe");
  }
  std::vector<int64_t> args;
  for (absl::string_view a : absl::StrSplit(absl::GetFlag(FLAGS_args), ',', absl::SkipEmpty())) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(a, &v)) return absl::InvalidArgumentError("bad --args");
    args.push_back(v);
  }
  return tuner::MakeTask(absl::GetFlag(FLAGS_template_name), args, "float32",
                         absl::GetFlag(FLAGS_target), "probe");
}

// The artifact build times of the configs probed so far (--artifact).
std::vector<double> artifact_ms;

void Probe(const tuner::TuneTask& task, std::optional<int64_t> index) {
  // The tuner's own build of the config (--artifact, --library): the artifact the farm loads.
  const bool from_library = absl::GetFlag(FLAGS_library);
  std::optional<tuner::BuildResult> built;
  if ((absl::GetFlag(FLAGS_artifact) && index.has_value()) || from_library) {
    built = tuner::BuildConfig(task, index);
  }
  std::string artifact;
  if (absl::GetFlag(FLAGS_artifact) && index.has_value()) {
    if (built->status.ok()) artifact_ms.push_back(built->build_seconds * 1e3);
    artifact = built->status.ok()
                   ? absl::StrFormat("  artifact %.1f ms", built->build_seconds * 1e3)
                   : "  artifact error: " + std::string(built->status.message());
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<tuner::LoweredConfig> lowered = tuner::LowerConfig(task, index);
  absl::StatusOr<lower::LoweredFunc> f =
      lowered.ok() ? absl::StatusOr<lower::LoweredFunc>(lowered->kernel) : lowered.status();
  const double lower_s = Seconds(start);
  std::string knobs = "reference";
  if (index.has_value()) {
    absl::StatusOr<tuner::Config> c = task.space->Get(*index);
    knobs = c.ok() ? c->ToJson() : std::string(c.status().message());
  }
  if (!f.ok()) {
    std::printf("%-12s lower error: %s\n  %s\n", index ? std::to_string(*index).c_str() : "ref",
                std::string(f.status().message()).c_str(), knobs.c_str());
    return;
  }
  const auto build_start = std::chrono::steady_clock::now();
  std::vector<lower::LoweredFunc> funcs = {*f};
  for (const tuner::LoweredPack& p : lowered->packs) funcs.push_back(p.func);
  // The JIT build, or the tuner's artifact (--library): the same functions, but not the same
  // code placement, and the artifact is what the farm measures and what ships.
  absl::StatusOr<std::unique_ptr<codegen::JitModule>> jit;
  absl::StatusOr<bench::LoadedLibrary> library = absl::UnknownError("not built");
  if (from_library) {
    library = built->status.ok() ? bench::LoadedLibrary::Load(built->artifact)
                                 : absl::StatusOr<bench::LoadedLibrary>(built->status);
  } else {
    jit = codegen::BuildJit(funcs, task.target);
  }
  // With --library, the tuner's build time (lowering included), as the farm's trials see it.
  const double build_s = from_library ? built->build_seconds : Seconds(build_start);
  auto lookup = [&](const std::string& name) -> absl::StatusOr<TfKernelFn> {
    return from_library ? library->Kernel(name) : (*jit)->Lookup(name);
  };
  double run_s = 0;
  if (from_library ? library.ok() : jit.ok()) {
    absl::StatusOr<TfKernelFn> fn = lookup(tuner::kKernelName);
    std::vector<runtime::NDArray> arrays;
    std::vector<runtime::NDArray*> ptrs;
    for (size_t i = 0; i < f->args.size(); ++i) {
      absl::StatusOr<runtime::NDArray> a =
          runtime::NDArray::Empty(f->args[i].shape, f->args[i].buffer->dtype);
      if (!a.ok()) return;
      a->FillRandom(i + 1);
      arrays.push_back(*std::move(a));
    }
    for (auto& a : arrays) ptrs.push_back(&a);
    // A weight packed ahead of time: a random weight packed once by the config's pack function,
    // untimed, as the worker does.
    for (const tuner::LoweredPack& p : lowered->packs) {
      absl::StatusOr<runtime::NDArray> weight =
          runtime::NDArray::Empty(p.func.args[0].shape, p.func.args[0].buffer->dtype);
      absl::StatusOr<TfKernelFn> pack = lookup(p.func.name);
      if (!weight.ok() || !pack.ok()) return;
      weight->FillRandom(p.arg_index + 1);
      (void)runtime::Call(*pack, {&*weight, &arrays[p.arg_index]});
    }
    if (fn.ok()) {
      run_s = MedianSeconds([&] { (void)runtime::Call(*fn, ptrs); }, absl::GetFlag(FLAGS_repeats));
    }
  }
  const absl::Status build_status = from_library ? library.status() : jit.status();
  std::printf(
      "%-12s lower %6.1f ms  nodes %8lld  build %8.1f ms  run %10.1f us  %8.2f GFLOP/s%s%s\n",
      index ? std::to_string(*index).c_str() : "ref", lower_s * 1e3,
      static_cast<long long>(ir::CountNodes(f->body)), build_s * 1e3, run_s * 1e6,
      run_s > 0 ? task.workload.flop / run_s * 1e-9 : 0.0,
      build_status.ok() ? "" : ("  build error: " + std::string(build_status.message())).c_str(),
      artifact.c_str());
  std::printf("  %s\n", knobs.c_str());
  if (absl::GetFlag(FLAGS_ir)) std::printf("%s\n", ir::ToString(f->body).c_str());
  const bool spills = absl::GetFlag(FLAGS_spills) && index.has_value();
  if (spills || absl::GetFlag(FLAGS_asm_out)) {
    absl::StatusOr<std::string> assembly = codegen::BuildAssembly({*f}, task.target);
    if (spills) {
      std::printf("  admitted %d  spills %d\n", task.space->Admits(*index) ? 1 : 0,
                  assembly.ok() ? codegen::CountVectorSpills(*assembly) : -1);
    }
    if (absl::GetFlag(FLAGS_asm_out)) {
      std::printf("%s\n", assembly.ok() ? assembly->c_str() : assembly.status().ToString().c_str());
    }
  }
  if (absl::GetFlag(FLAGS_passes) && index.has_value()) {
    absl::StatusOr<tuner::Config> c = task.space->Get(*index);
    if (!c.ok()) return;
    absl::StatusOr<tuner::Instance> inst = task.tmpl->Instantiate(task.workload, task.target, &*c);
    std::ostringstream dump;
    lower::LowerOptions options;
    options.dump_to = &dump;
    if (inst.ok()) (void)lower::Lower(*inst->sch, inst->args, tuner::kKernelName, options);
    std::printf("%s\n", dump.str().c_str());
  }
  std::fflush(stdout);
}

int Run() {
  absl::StatusOr<tuner::TuneTask> task = MakeProbeTask();
  if (!task.ok()) {
    std::fprintf(stderr, "%s\n", task.status().ToString().c_str());
    return 1;
  }
  std::printf("%s: %lld configs, %.3g FLOP\n%s\n", task->workload.template_name.c_str(),
              static_cast<long long>(task->space->size()), task->workload.flop,
              task->space->Describe().c_str());
  if (absl::GetFlag(FLAGS_reference)) Probe(*task, std::nullopt);
  std::vector<std::string> configs = absl::GetFlag(FLAGS_config);
  const std::vector<std::string> sets = absl::GetFlag(FLAGS_set);
  if (configs.empty() && !sets.empty()) configs.push_back("0");
  for (const std::string& c : configs) {
    int64_t index = 0;
    if (!absl::SimpleAtoi(c, &index) || index < 0 || index >= task->space->size()) {
      std::fprintf(stderr, "bad --config %s\n", c.c_str());
      return 1;
    }
    std::vector<int64_t> choices = task->space->Decompose(index);
    for (const std::string& kv : sets) {
      const std::vector<std::string> parts = absl::StrSplit(kv, '=');
      const int k = parts.size() == 2 ? task->space->KnobIndex(parts[0]) : -1;
      bool found = false;
      for (int64_t i = 0; k >= 0 && i < task->space->knob(k).size() && !found; ++i) {
        const std::string v = task->space->knob(k).ValueJson(i);
        if (v == parts[1] || v == "[-1, " + parts[1] + "]") {
          choices[k] = i;
          found = true;
        }
      }
      if (!found) {
        std::fprintf(stderr, "bad --set %s (no such knob or value)\n", kv.c_str());
        return 1;
      }
    }
    Probe(*task, task->space->Compose(choices));
  }
  std::mt19937_64 rng(absl::GetFlag(FLAGS_seed));
  std::uniform_int_distribution<int64_t> pick(0, task->space->size() - 1);
  for (int i = 0; i < absl::GetFlag(FLAGS_random); ++i) Probe(*task, pick(rng));
  if (!artifact_ms.empty()) {
    std::sort(artifact_ms.begin(), artifact_ms.end());
    std::printf("artifact builds: median %.1f ms over %zu configs\n",
                artifact_ms[artifact_ms.size() / 2], artifact_ms.size());
  }
  return 0;
}

}  // namespace
}  // namespace tunefarm

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return tunefarm::Run();
}
