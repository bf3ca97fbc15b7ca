// Whole models against PyTorch, end to end, as a user runs them:
//
//   bazel run -c opt //bench:model_e2e -- [--quick] [--models=resnet18,...] [--db=FILE]
//
// For each model (torchvision's ResNet-18, MobileNetV2 and ResNet-50 with random weights, and
// BERT-style encoder layers, torch.nn.TransformerEncoderLayer: `encoder` 256 wide with 4 heads
// and ReLU, `bert_layer` BERT-base's 768 wide, 12 heads, 3072 inner, GELU, 128 tokens; built
// and exported to ONNX by
// tests/models/make_model.py with Debian's PyTorch, nothing downloaded), for 1 and 2 threads
// each: `tunefarm tune-model` on the embedded local farm with --threads_per_worker t
// (--trials_per_task trials per tuning task, into --db, or --db.2t for 2 threads: a log given
// again counts its records toward the budget, so a larger --trials_per_task tunes further),
// `tunefarm compile`, then in this process the compiled library's batch-1 latency at t threads
// (median of --runs after warm-up) beside PyTorch's
// best CPU configuration on this machine (tests/models/torch_latency.py, a child process: frozen
// TorchScript with optimize_for_inference, oneDNN, torch.set_num_threads(t)), run alternately.
// The output is checked against PyTorch's on the same input: max_rel_err is the largest
// |ours − PyTorch| over the largest |PyTorch| output (relative to the output's scale), and the
// count of elements outside 1e-4 + 1e-3·|PyTorch| is printed beside it. Each model's per-call
// profile (our time per fused group, its GFLOP/s and share) and PyTorch's own operator profile
// follow; peak_frac is the model's GFLOP/s over this core's FMA peak measured in the run.
//
// PyTorch's 2-thread time is the faster of its runs at 1 and 2 threads (the table says when
// the 1-thread one was faster).
//
// The last line: `RESULT speedup_resnet18_1t=… speedup_resnet18_2t=… speedup_mobilenetv2_1t=…
// speedup_resnet50_1t=… speedup_encoder_1t=… speedup_bertlayer_1t=… max_rel_err=…` (speedup =
// PyTorch's median latency over ours; a model that cannot be compiled counts as 0 and says
// why).
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/child_process.h"
#include "common/aligned_allocator.h"
#include "common/machine_peak.h"
#include "graph/model_tasks.h"
#include "graph/prepare_model.h"

extern "C" void omp_set_num_threads(int);

ABSL_FLAG(bool, quick, false,
          "A short run: the small test CNN and ResNet-18 with a few trials per task, few runs.");
ABSL_FLAG(std::string, models, "",
          "Comma-separated models (default: resnet18,mobilenet_v2,"
          "resnet50,encoder,bert_layer; --quick: small_cnn,resnet18,encoder).");
ABSL_FLAG(int, trials_per_task, 0, "Tuning trials per task (default 64; --quick 4).");
ABSL_FLAG(std::string, db, "",
          "Tuning log to use and extend (default: a new one in the scratch "
          "directory, so every run tunes from scratch).");
ABSL_FLAG(int, runs, 0, "Timed inferences per configuration (default 40; --quick 5).");
ABSL_FLAG(std::string, tunefarm, "", "Path of the tunefarm binary (default: from runfiles).");
ABSL_FLAG(bool, one_thread_only, false,
          "Tune and time at one thread only (a model's 2-thread speedup is then not measured).");

namespace tunefarm::bench {
namespace {

constexpr char kPython[] = "/usr/bin/python3";

// A file of the workspace (scripts) from `bazel run`'s workspace or the working directory.
std::string WorkspaceFile(const std::string& relative) {
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    const std::string p = absl::StrCat(ws, "/", relative);
    if (access(p.c_str(), R_OK) == 0) return p;
  }
  return relative;
}

std::string TunefarmBinary() {
  if (!absl::GetFlag(FLAGS_tunefarm).empty()) return absl::GetFlag(FLAGS_tunefarm);
  for (const std::string& c :
       {std::string("cli/tunefarm"), WorkspaceFile("bazel-bin/cli/tunefarm")}) {
    if (access(c.c_str(), X_OK) == 0) {
      char resolved[4096];
      return realpath(c.c_str(), resolved) != nullptr ? resolved : c;
    }
  }
  return "";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// On 64-byte boundaries, as the model's own buffers (aligned_allocator.h).
AlignedVector<float> ReadFloats(const std::string& path) {
  const std::string b = ReadAll(path);
  AlignedVector<float> v(b.size() / 4);
  std::memcpy(v.data(), b.data(), v.size() * 4);
  return v;
}

// Runs a command with its output in `log`; prints the log's tail when it fails.
absl::Status Run(const std::vector<std::string>& argv, const std::string& log) {
  absl::StatusOr<int> code = RunToExit(argv, log);
  if (!code.ok()) return code.status();
  if (*code == 0) return absl::OkStatus();
  std::string text = ReadAll(log);
  if (text.size() > 2000) text = text.substr(text.size() - 2000);
  return absl::InternalError(
      absl::StrCat(argv[0], " ", argv.size() > 1 ? argv[1] : "", " exited ", *code, ":\n", text));
}

// The compiled model's C ABI (graph/emit_runner.h).
struct Model {
  void* lib = nullptr;
  void* handle = nullptr;
  int (*run)(void*, const float* const*, float* const*) = nullptr;
  int (*run_profiled)(void*, const float* const*, float* const*, double*) = nullptr;
  int (*num_calls)() = nullptr;
  const char* (*call_name)(int) = nullptr;
  void (*free)(void*) = nullptr;
  ~Model() {
    if (handle != nullptr) free(handle);
    // The library stays loaded: OpenMP's threads may still reference it.
  }
};

absl::Status LoadModel(const std::string& so, const std::string& weights, Model* m) {
  m->lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (m->lib == nullptr) return absl::InternalError(dlerror());
  auto create =
      reinterpret_cast<void* (*)(const char*)>(dlsym(m->lib, "tf_model_create_from_file"));
  auto error = reinterpret_cast<const char* (*)()>(dlsym(m->lib, "tf_model_error"));
  m->run = reinterpret_cast<decltype(m->run)>(dlsym(m->lib, "tf_model_run"));
  m->run_profiled =
      reinterpret_cast<decltype(m->run_profiled)>(dlsym(m->lib, "tf_model_run_profiled"));
  m->num_calls = reinterpret_cast<decltype(m->num_calls)>(dlsym(m->lib, "tf_model_num_calls"));
  m->call_name = reinterpret_cast<decltype(m->call_name)>(dlsym(m->lib, "tf_model_call_name"));
  m->free = reinterpret_cast<decltype(m->free)>(dlsym(m->lib, "tf_model_free"));
  if (!create || !error || !m->run || !m->run_profiled || !m->num_calls || !m->call_name ||
      !m->free) {
    return absl::InternalError(absl::StrCat(so, " lacks the model ABI"));
  }
  m->handle = create(weights.c_str());
  if (m->handle == nullptr) return absl::InternalError(error());
  return absl::OkStatus();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// PyTorch's median latency (seconds) at `threads`; its operator profile into `profile`.
absl::StatusOr<double> TorchLatency(const std::string& name, int threads, int runs,
                                    const std::string& dir, std::string* profile) {
  const std::string log = absl::StrCat(dir, "/torch_", name, "_", threads, ".txt");
  std::vector<std::string> argv = {kPython,
                                   WorkspaceFile("tests/models/torch_latency.py"),
                                   name,
                                   "--threads",
                                   absl::StrCat(threads),
                                   "--runs",
                                   absl::StrCat(runs)};
  if (profile != nullptr) argv.push_back("--profile");
  if (absl::Status s = Run(argv, log); !s.ok()) return s;
  const std::string text = ReadAll(log);
  const size_t at = text.rfind("median_ms=");
  double ms = 0;
  if (at == std::string::npos ||
      !absl::SimpleAtod(text.substr(at + 10, text.find(' ', at) - at - 10), &ms)) {
    return absl::InternalError(absl::StrCat("cannot read PyTorch's latency from ", log));
  }
  if (profile != nullptr) *profile = text;
  return ms / 1e3;
}

struct ModelResult {
  std::string name;
  bool ok = false;
  std::string why;
  double ours_1t = 0, ours_2t = 0, torch_1t = 0, torch_2t = 0;
  double max_rel_err = 0;
  int64_t outside = 0;
  double gflop = 0;
};

ModelResult RunModel(const std::string& name, const std::string& dir, const std::string& tunefarm,
                     const std::string& db, int trials_per_task, int runs, bool quick) {
  ModelResult r;
  r.name = name;
  absl::PrintF("\n== %s ==\n", name);
  std::fflush(stdout);
  const std::string base = absl::StrCat(dir, "/", name);
  if (absl::Status s = Run({kPython, WorkspaceFile("tests/models/make_model.py"), name, dir},
                           base + ".make.txt");
      !s.ok()) {
    r.why = absl::StrCat("make_model.py: ", s.message());
    return r;
  }
  absl::StatusOr<graph::PreparedModel> model = graph::PrepareModelFile(base + ".onnx", {});
  absl::StatusOr<std::vector<graph::ModelTask>> tasks =
      model.ok() ? graph::ModelTasks(*model, "llvm", "bench") : model.status();
  if (!tasks.ok()) {
    r.why = std::string(tasks.status().message());
    absl::PrintF("cannot compile %s: %s\n", name, r.why);
    return r;
  }
  std::map<std::string, double> flop_of_call;  // "g3 conv_relu" → FLOPs (the direct count)
  std::map<int, double> group_flop;
  for (const graph::ModelTask& t : *tasks) {
    if (t.variant != 0) continue;
    r.gflop += t.task.workload.flop * t.spec.weight() / 1e9;
    for (int g : t.groups) group_flop[g] = t.task.workload.flop;
  }
  for (const graph::ModelTask& t : *tasks) {
    for (int g : t.groups) {
      const graph::GroupProgram& p =
          t.variant == 0 ? model->programs[g] : model->alternatives[g][t.variant - 1];
      flop_of_call[absl::StrCat("g", g, " ", p.name)] = group_flop[g];
    }
  }
  const int trials = trials_per_task * static_cast<int>(tasks->size());
  absl::PrintF("%d tuning tasks, %.2f GFLOP per inference\n", tasks->size(), r.gflop);
  // Tuned for each thread count on its own (the kernels measured with that many threads, one
  // worker per that many cores), each into its own log, compiled into its own library.
  Model models[2];
  const std::vector<int> thread_counts =
      absl::GetFlag(FLAGS_one_thread_only) ? std::vector<int>{1} : std::vector<int>{1, 2};
  for (int threads : thread_counts) {
    const std::string tdb = threads == 1 ? db : db + ".2t";
    const std::string lib = absl::StrCat(base, "_", threads, "t");
    absl::PrintF("%d thread(s): tuning %d trials into %s\n", threads, trials, tdb);
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    if (absl::Status s =
            Run({tunefarm, "tune-model", base + ".onnx", "--trials", absl::StrCat(trials),
                 "--batch", quick ? "4" : "16", "--top_k", quick ? "0" : "3",
                 "--threads_per_worker", absl::StrCat(threads), "--db", tdb},
                lib + ".tune.txt");
        !s.ok()) {
      r.why = std::string(s.message());
      return r;
    }
    const double tune_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (absl::Status s = Run({tunefarm, "compile", base + ".onnx", "--db", tdb, "-o", lib + ".so"},
                             lib + ".compile.txt");
        !s.ok()) {
      r.why = std::string(s.message());
      return r;
    }
    std::string summary;
    for (absl::string_view line : absl::StrSplit(ReadAll(lib + ".compile.txt"), '\n')) {
      if (absl::StrContains(line, " calls (")) summary = std::string(line);
    }
    absl::PrintF("tuned in %.0f s; compiled: %s\n", tune_s, summary);
    if (absl::Status s = LoadModel(lib + ".so", lib + ".weights", &models[threads - 1]); !s.ok()) {
      r.why = std::string(s.message());
      return r;
    }
  }
  Model& m = models[0];
  AlignedVector<float> input = ReadFloats(base + ".input.bin");
  AlignedVector<float> expected = ReadFloats(base + ".expected.bin");
  AlignedVector<float> output(expected.size());
  const float* in[] = {input.data()};
  float* out[] = {output.data()};
  for (int threads : thread_counts) {
    Model& model = models[threads - 1];
    omp_set_num_threads(1);
    if (model.run(model.handle, in, out) != 0) {
      r.why = "the compiled model's run failed";
      return r;
    }
    double scale = 0, max_err = 0;
    for (size_t k = 0; k < expected.size(); ++k) {
      scale = std::max(scale, std::fabs(static_cast<double>(expected[k])));
      const double d = std::fabs(static_cast<double>(output[k]) - expected[k]);
      max_err = std::max(max_err, d);
      if (!(d <= 1e-4 + 1e-3 * std::fabs(expected[k]))) ++r.outside;
    }
    r.max_rel_err = std::max(r.max_rel_err, scale > 0 ? max_err / scale : max_err);
  }
  // Ours and PyTorch's, alternately at each thread count.
  std::string torch_profile;
  for (int threads : thread_counts) {
    Model& model = models[threads - 1];
    omp_set_num_threads(threads);
    for (int w = 0; w < 3; ++w) model.run(model.handle, in, out);
    std::vector<double> ours;
    for (int k = 0; k < runs; ++k) {
      const auto s = std::chrono::steady_clock::now();
      model.run(model.handle, in, out);
      ours.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
    }
    absl::StatusOr<double> torch =
        TorchLatency(name, threads, runs, dir, threads == 1 ? &torch_profile : nullptr);
    if (!torch.ok()) {
      r.why = std::string(torch.status().message());
      return r;
    }
    (threads == 1 ? r.ours_1t : r.ours_2t) = Median(ours);
    (threads == 1 ? r.torch_1t : r.torch_2t) = *torch;
  }
  omp_set_num_threads(1);
  // Our time per call (fused group), at one thread.
  const int calls = m.num_calls();
  std::vector<double> per(calls, 0.0), once(calls);
  for (int k = 0; k < runs; ++k) {
    m.run_profiled(m.handle, in, out, once.data());
    for (int c = 0; c < calls; ++c) per[c] += once[c] / runs;
  }
  double total = 0;
  for (double t : per) total += t;
  std::vector<int> order(calls);
  for (int c = 0; c < calls; ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return per[a] > per[b]; });
  absl::PrintF("%-34s %9s %7s %9s\n", "our call (1 thread)", "ms", "share", "GFLOP/s");
  for (int k = 0; k < std::min(calls, quick ? 6 : 14); ++k) {
    const int c = order[k];
    const double f = flop_of_call.count(m.call_name(c)) ? flop_of_call[m.call_name(c)] : 0;
    absl::PrintF("%-34s %9.3f %6.1f%% %9.1f\n", m.call_name(c), per[c] * 1e3, 100 * per[c] / total,
                 per[c] > 0 ? f / per[c] / 1e9 : 0.0);
  }
  absl::PrintF("(%d calls, %.3f ms in all)\nPyTorch's operators, one inference at 1 thread:\n%s",
               calls, total * 1e3, torch_profile);
  r.ok = true;
  return r;
}

int Main() {
  const bool quick = absl::GetFlag(FLAGS_quick);
  std::string models = absl::GetFlag(FLAGS_models);
  if (models.empty())
    models =
        quick ? "small_cnn,resnet18,encoder" : "resnet18,mobilenet_v2,resnet50,encoder,bert_layer";
  // Names of tests/models/make_model.py; a misspelt one is refused before anything runs.
  for (absl::string_view name : absl::StrSplit(models, ',', absl::SkipEmpty())) {
    if (!absl::c_linear_search(
            std::vector<absl::string_view>{"small_cnn", "resnet18", "resnet50", "mobilenet_v2",
                                           "encoder", "encoder_gelu", "bert_layer"},
            name)) {
      absl::FPrintF(stderr,
                    "model_e2e: unknown model '%s' in --models (known: small_cnn, resnet18, "
                    "resnet50, mobilenet_v2, encoder, encoder_gelu, bert_layer)\n",
                    name);
      return 2;
    }
  }
  int trials_per_task = absl::GetFlag(FLAGS_trials_per_task);
  if (trials_per_task <= 0) trials_per_task = quick ? 4 : 64;
  int runs = absl::GetFlag(FLAGS_runs);
  if (runs <= 0) runs = quick ? 5 : 40;
  const std::string tunefarm = TunefarmBinary();
  if (tunefarm.empty()) {
    std::fprintf(stderr, "model_e2e: cannot find the tunefarm binary (give --tunefarm)\n");
    return 1;
  }
  char dir_template[] = "/tmp/tunefarm-model-e2e-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) return 1;
  std::string db = absl::GetFlag(FLAGS_db);
  if (db.empty()) db = absl::StrCat(dir, "/tuning.db");
  const double peak = MeasureFmaPeakGflops(1);
  absl::PrintF("model_e2e: work in %s, tuning log %s; FMA peak of one core %.1f GFLOP/s\n", dir, db,
               peak);
  std::vector<ModelResult> results;
  for (absl::string_view name : absl::StrSplit(models, ',', absl::SkipEmpty())) {
    results.push_back(RunModel(std::string(name), dir, tunefarm, db, trials_per_task, runs, quick));
  }
  absl::PrintF("\n%-14s %10s %10s %8s %10s %10s %8s %9s %9s  %s\n", "model", "ours 1t", "torch 1t",
               "speedup", "ours 2t", "torch 2t", "speedup", "peak_frac", "rel_err", "");
  std::map<std::string, double> speedup;
  double max_rel = 0;
  for (const ModelResult& r : results) {
    std::string key = r.name;
    key.erase(std::remove(key.begin(), key.end(), '_'), key.end());
    if (!r.ok) {
      absl::PrintF("%-14s %s\n", r.name, absl::StrCat("FAILED: ", r.why.substr(0, 300)));
      speedup[key + "_1t"] = speedup[key + "_2t"] = 0;
      continue;
    }
    // With two cores PyTorch's best is the faster of its 1- and 2-thread runs (on this machine
    // an encoder layer at set_num_threads(2) ran 3x slower than at 1).
    const bool torch_2t_slower = r.ours_2t > 0 && r.torch_1t < r.torch_2t;
    const double torch_2t = torch_2t_slower ? r.torch_1t : r.torch_2t;
    speedup[key + "_1t"] = r.torch_1t / r.ours_1t;
    if (r.ours_2t > 0) speedup[key + "_2t"] = torch_2t / r.ours_2t;
    max_rel = std::max(max_rel, r.max_rel_err);
    // Two threads not measured (--one_thread_only): dashes, not 0 ms and NaN.
    const std::string two_threads = r.ours_2t > 0
                                        ? absl::StrFormat("%8.2fms %8.2fms %8.2f", r.ours_2t * 1e3,
                                                          torch_2t * 1e3, torch_2t / r.ours_2t)
                                        : absl::StrFormat("%10s %10s %8s", "-", "-", "-");
    absl::PrintF("%-14s %8.2fms %8.2fms %8.2f %s %9.2f %9.1e  %d outside 1e-4+1e-3|x|%s\n", r.name,
                 r.ours_1t * 1e3, r.torch_1t * 1e3, r.torch_1t / r.ours_1t, two_threads,
                 r.gflop / r.ours_1t / peak, r.max_rel_err, r.outside,
                 torch_2t_slower
                     ? absl::StrFormat("  (torch 2t: its 1-thread time; %.2fms at 2 threads)",
                                       r.torch_2t * 1e3)
                     : "");
  }
  auto get = [&](const std::string& k) {
    auto it = speedup.find(k);
    return it == speedup.end() ? std::string("n/a") : absl::StrFormat("%.3f", it->second);
  };
  absl::PrintF(
      "RESULT speedup_resnet18_1t=%s speedup_resnet18_2t=%s speedup_mobilenetv2_1t=%s "
      "speedup_resnet50_1t=%s speedup_encoder_1t=%s speedup_bertlayer_1t=%s max_rel_err=%.2e\n",
      get("resnet18_1t"), get("resnet18_2t"), get("mobilenetv2_1t"), get("resnet50_1t"),
      get("encoder_1t"), get("bertlayer_1t"), max_rel);
  return 0;
}

}  // namespace
}  // namespace tunefarm::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return tunefarm::bench::Main();
}
