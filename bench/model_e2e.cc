// Whole models against PyTorch, end to end, as a user runs them:
//
//   bazel run -c opt //bench:model_e2e -- [--quick] [--models=resnet18,...] [--db=FILE]
//
// For each model (torchvision's ResNet-18, MobileNetV2 and ResNet-50 with random weights, and
// BERT-style encoder layers, torch.nn.TransformerEncoderLayer: `encoder` 256 wide with 4 heads
// and ReLU, `bert_layer` BERT-base's 768 wide, 12 heads, 3072 inner, GELU, 128 tokens; built
// and exported to ONNX by
// tests/models/make_model.py with Debian's PyTorch, nothing downloaded), at 1 thread, and at 2
// for the models of --two_thread_models (ResNet-18, whose 2-thread speedup RESULT reports):
// `tunefarm tune-model` on the embedded local farm with --threads_per_worker t
// (--trials_per_task trials per tuning task, into --db, or --db.2t for 2 threads: a log given
// again counts its records toward the budget, so a larger --trials_per_task tunes further),
// `tunefarm compile`, then in this process the compiled library's batch-1 latency at t threads
// (median of --runs after warm-up) beside PyTorch's
// best CPU configuration on this machine (tests/models/torch_latency.py, a child process: frozen
// TorchScript with optimize_for_inference, oneDNN, torch.set_num_threads(t)), run alternately.
// The output is checked against PyTorch's on the same input: max_rel_err is the largest
// |ours − PyTorch| over the largest |PyTorch| output (relative to the output's scale), and the
// count of elements outside 1e-4 + 1e-3·|PyTorch| is printed beside it. Each model's PyTorch
// operator profile follows, then a table of its fused groups in execution order: our time per
// group inside the model at 1 and 2 threads (profiled calls) beside PyTorch's time for the same
// layer (its frozen graph's oneDNN times for convolutions, the eager model's for linear layers;
// matched through the ONNX node names). peak_frac is the model's GFLOP/s over this core's FMA
// peak measured in the run.
//
// PyTorch runs with as many OpenBLAS threads as OpenMP ones (its matmuls are OpenBLAS's, which
// would otherwise use every core at "1 thread"); its 2-thread time is the fastest of
// set_num_threads(2), set_num_threads(1) with OpenBLAS on 2 threads, and its 1-thread run (the
// table says when the 1-thread one was faster).
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
ABSL_FLAG(std::string, two_thread_models, "resnet18",
          "Models also tuned and timed at 2 threads (comma-separated, or 'all'): by default the "
          "one whose 2-thread speedup the RESULT line reports; the others' 2-thread tuning "
          "would take hours on 2 cores.");

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

// Our mean time per call (seconds) over `runs` profiled inferences at the current thread count.
std::vector<double> ProfileCalls(Model& m, const float* const* in, float* const* out, int runs) {
  const int calls = m.num_calls();
  std::vector<double> per(calls, 0.0), once(calls);
  for (int k = 0; k < runs; ++k) {
    m.run_profiled(m.handle, in, out, once.data());
    for (int c = 0; c < calls; ++c) per[c] += once[c] / runs;
  }
  return per;
}

// PyTorch's time per layer (ms) from torch_latency.py --profile: "  layer N NAME MS ms SOURCE".
std::map<std::string, double> ParseTorchLayers(const std::string& text) {
  std::map<std::string, double> ms;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    double v = 0;
    if (f.size() >= 5 && f[0] == "layer" && f[4] == "ms" && absl::SimpleAtod(f[3], &v)) {
      ms[std::string(f[2])] = v;
    }
  }
  return ms;
}

// The PyTorch module an exported node belongs to. torch.onnx names a node by its scopes and
// operator, each scope named from the nearest scope that is not a container, which it then
// extends: "/layer1/layer1.0/conv1/Conv" -> "layer1.0.conv1", "/fc/Gemm" -> "fc",
// "/features/features.1/conv/conv.0/conv.0.0/Conv" -> "features.1.conv.0.0".
std::string ModuleOfNode(absl::string_view node_name) {
  std::vector<absl::string_view> parts = absl::StrSplit(node_name, '/', absl::SkipEmpty());
  if (parts.size() < 2) return "";
  std::vector<std::string> path;
  for (size_t k = 0; k + 1 < parts.size(); ++k) {
    if (!path.empty() && absl::StartsWith(parts[k], absl::StrCat(path.back(), "."))) {
      path.back() = std::string(parts[k]);  // a container's child: extends its name
    } else {
      path.push_back(std::string(parts[k]));
    }
  }
  return absl::StrJoin(path, ".");
}

// Our time per fused group in the model against PyTorch's per layer, in execution order, at 1
// and (where measured) 2 threads. A group is matched to PyTorch's layer through its anchor
// node's name; groups of one layer share its time (the ratio is over their sum), groups with
// no layer of their own (pooling, layout transforms) show a dash. PyTorch's time for a
// convolution is its frozen graph's (oneDNN's own execution times of the convolution and of the
// ReLU and residual sum after it); for linear and attention layers its eager model's (hooks
// around each module, a few microseconds of Python included). See torch_latency.py.
void PrintLayerTable(const graph::PreparedModel& model, Model (&models)[2],
                     const std::vector<double> (&per)[2],
                     const std::map<std::string, double> (&torch)[2],
                     std::map<std::string, double>& flop_of_call) {
  Model& m = models[0];
  const int calls = m.num_calls();
  const bool two = static_cast<int>(per[1].size()) == calls;
  std::vector<std::string> module(calls);
  std::map<std::string, double> ours_of_module[2];
  for (int c = 0; c < calls; ++c) {
    int g = -1;
    const std::string call = m.call_name(c);
    if (call.size() > 1 && call[0] == 'g' &&
        absl::SimpleAtoi(call.substr(1, call.find(' ') - 1), &g) && g >= 0 &&
        g < static_cast<int>(model.groups.size()) && !model.groups[g].nodes.empty()) {
      module[c] = ModuleOfNode(model.graph.nodes[model.groups[g].nodes[0]].name);
    }
    for (int t = 0; t < (two ? 2 : 1); ++t) {
      if (torch[t].count(module[c])) ours_of_module[t][module[c]] += per[t][c];
    }
  }
  absl::PrintF(
      "\nPer fused group, in execution order (ours: in the model, profiled; PyTorch: its "
      "layer; ratio: PyTorch's time over ours):\n%-30s %-22s %8s %8s %6s %8s",
      "our call", "PyTorch layer", "ours 1t", "torch 1t", "ratio", "GFLOP/s");
  if (two) absl::PrintF(" %8s %8s %6s", "ours 2t", "torch 2t", "ratio");
  absl::PrintF("\n");
  double sum_ours[2] = {0, 0}, sum_torch[2] = {0, 0};
  std::map<std::string, bool> shown;
  for (int c = 0; c < calls; ++c) {
    const double f = flop_of_call.count(m.call_name(c)) ? flop_of_call[m.call_name(c)] : 0;
    const bool first = !module[c].empty() && !shown[module[c]];
    shown[module[c]] = true;
    std::string cols[2];
    for (int t = 0; t < (two ? 2 : 1); ++t) {
      sum_ours[t] += per[t][c];
      auto it = torch[t].find(module[c]);
      if (it == torch[t].end()) {
        cols[t] = absl::StrFormat("%8.3f %8s %6s", per[t][c] * 1e3, "-", "");
      } else if (!first) {
        cols[t] = absl::StrFormat("%8.3f %8s %6s", per[t][c] * 1e3, "(above)", "");
      } else {
        sum_torch[t] += it->second;
        cols[t] = absl::StrFormat("%8.3f %8.3f %6.2f", per[t][c] * 1e3, it->second,
                                  it->second / 1e3 / ours_of_module[t][module[c]]);
      }
    }
    // The 2-thread library may run another algorithm for the group (Winograd or direct).
    const std::string other = two && std::string(models[1].call_name(c)) != m.call_name(c)
                                  ? absl::StrCat("  2t: ", models[1].call_name(c))
                                  : "";
    absl::PrintF("%-30s %-22s %s %8.1f%s%s\n", std::string(m.call_name(c)).substr(0, 30),
                 module[c].substr(0, 22), cols[0], per[0][c] > 0 ? f / per[0][c] / 1e9 : 0.0,
                 two ? " " + cols[1] : "", other);
  }
  absl::PrintF("%-30s %-22s %8.3f %8.3f %6s %8s", "(sum)", "", sum_ours[0] * 1e3, sum_torch[0], "",
               "");
  if (two) absl::PrintF(" %8.3f %8.3f", sum_ours[1] * 1e3, sum_torch[1]);
  absl::PrintF("\n");
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
  const std::string two = absl::GetFlag(FLAGS_two_thread_models);
  const bool two_threads =
      !absl::GetFlag(FLAGS_one_thread_only) &&
      (two == "all" ||
       absl::c_linear_search(std::vector<std::string>(absl::StrSplit(two, ',')), name));
  const std::vector<int> thread_counts = two_threads ? std::vector<int>{1, 2} : std::vector<int>{1};
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
  // Ours and PyTorch's, alternately at each thread count; PyTorch's per-layer profile at each.
  std::string torch_profile[2];
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
        TorchLatency(name, threads, runs, dir, &torch_profile[threads - 1]);
    if (!torch.ok()) {
      r.why = std::string(torch.status().message());
      return r;
    }
    (threads == 1 ? r.ours_1t : r.ours_2t) = Median(ours);
    (threads == 1 ? r.torch_1t : r.torch_2t) = *torch;
  }
  // Our time per call (fused group) inside the model, at each thread count.
  std::vector<double> per[2];
  for (int threads : thread_counts) {
    Model& model = models[threads - 1];
    omp_set_num_threads(threads);
    per[threads - 1] = ProfileCalls(model, in, out, runs);
  }
  omp_set_num_threads(1);
  const std::string operators =
      torch_profile[0].substr(0, torch_profile[0].find("PyTorch per layer"));
  absl::PrintF("PyTorch's operators, one inference at 1 thread:\n%s", operators);
  PrintLayerTable(*model, models, per,
                  {ParseTorchLayers(torch_profile[0]), ParseTorchLayers(torch_profile[1])},
                  flop_of_call);
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
    // Two threads not measured (--one_thread_only, --two_thread_models): dashes, not 0 ms and
    // NaN.
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
