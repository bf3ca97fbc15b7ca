// `tunefarm run model.so [--input FILE] [--expect FILE]`: loads a compiled model through its C
// ABI, runs it and prints its latency (median of --runs after one warm-up), optionally each
// kernel call's share (--profile) and its error against expected outputs.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/model_flags.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"
#include "common/aligned_allocator.h"

ABSL_FLAG(std::string, input, "",
          "run: the model's input, raw float32 (little-endian, row-major); default: random.");
ABSL_FLAG(std::string, expect, "",
          "run: the expected output, raw float32; the run fails unless every element is within "
          "1e-4 + 1e-3·|expected|.");
ABSL_FLAG(std::string, save_output, "", "run: write the output, raw float32, to this file.");
ABSL_FLAG(int, runs, 0,
          "Timed runs. run: inferences after one warm-up (default 20); measure: measurements "
          "of the config (default 5).");
ABSL_FLAG(bool, profile, false, "run: time each kernel call and print the slowest.");
ABSL_FLAG(int, threads, 0, "run: OpenMP threads of the kernels (default: OpenMP's, all cores).");

extern "C" void omp_set_num_threads(int);
extern "C" int omp_get_max_threads(void);

namespace tunefarm::cli {

namespace {

// The compiled model's C ABI (graph/emit_runner.h), looked up in the library.
struct ModelAbi {
  void* (*create_from_file)(const char*) = nullptr;
  int (*run)(void*, const float* const*, float* const*) = nullptr;
  int (*run_profiled)(void*, const float* const*, float* const*, double*) = nullptr;
  void (*free)(void*) = nullptr;
  const char* (*error)() = nullptr;
  int (*num_inputs)() = nullptr;
  int (*num_outputs)() = nullptr;
  int (*input)(int, int64_t*, const char**) = nullptr;
  int (*output)(int, int64_t*, const char**) = nullptr;
  int (*num_calls)() = nullptr;
  const char* (*call_name)(int) = nullptr;
};

template <typename F>
bool Find(void* lib, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(lib, name));
  return *f != nullptr;
}

template <class Vector>
bool ReadFloats(const std::string& path, size_t count, Vector* out) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in || static_cast<size_t>(in.tellg()) != count * sizeof(float)) return false;
  in.seekg(0);
  out->resize(count);
  in.read(reinterpret_cast<char*>(out->data()), count * sizeof(float));
  return static_cast<bool>(in);
}

}  // namespace

int RunRun(const std::vector<std::string>& positional) {
  if (positional.size() != 1) {
    absl::FPrintF(stderr, "tunefarm run: expected one MODEL.so (from tunefarm compile)\n");
    return kExitUsage;
  }
  std::string path = UserPath(positional[0]);
  // dlopen searches the library path for a name without a '/'.
  if (path.find('/') == std::string::npos) path = "./" + path;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    absl::FPrintF(stderr, "tunefarm run: cannot load %s: %s\n", path, dlerror());
    return kExitFailure;
  }
  ModelAbi abi;
  if (!Find(lib, "tf_model_create_from_file", &abi.create_from_file) ||
      !Find(lib, "tf_model_run", &abi.run) ||
      !Find(lib, "tf_model_run_profiled", &abi.run_profiled) ||
      !Find(lib, "tf_model_free", &abi.free) || !Find(lib, "tf_model_error", &abi.error) ||
      !Find(lib, "tf_model_num_inputs", &abi.num_inputs) ||
      !Find(lib, "tf_model_num_outputs", &abi.num_outputs) ||
      !Find(lib, "tf_model_input", &abi.input) || !Find(lib, "tf_model_output", &abi.output) ||
      !Find(lib, "tf_model_num_calls", &abi.num_calls) ||
      !Find(lib, "tf_model_call_name", &abi.call_name)) {
    absl::FPrintF(stderr, "tunefarm run: %s is not a model from tunefarm compile\n", path);
    return kExitUsage;
  }
  if (absl::GetFlag(FLAGS_threads) > 0) omp_set_num_threads(absl::GetFlag(FLAGS_threads));
  const std::string weights = WeightsPathFor(path);
  void* model = abi.create_from_file(weights.c_str());
  if (model == nullptr) {
    absl::FPrintF(stderr, "tunefarm run: %s: %s\n", weights, abi.error());
    return kExitFailure;
  }
  auto elements = [](int rank, const int64_t* dims) {
    int64_t n = 1;
    for (int d = 0; d < rank; ++d) n *= dims[d];
    return n;
  };
  // On 64-byte boundaries, as the model's own buffers and the farm's (aligned_allocator.h).
  std::vector<AlignedVector<float>> inputs(abi.num_inputs()), outputs(abi.num_outputs());
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int i = 0; i < abi.num_inputs(); ++i) {
    int64_t dims[16];
    const char* name = nullptr;
    const int rank = abi.input(i, dims, &name);
    const int64_t n = elements(rank, dims);
    if (i == 0 && !absl::GetFlag(FLAGS_input).empty()) {
      if (!ReadFloats(UserPath(absl::GetFlag(FLAGS_input)), n, &inputs[i])) {
        absl::FPrintF(stderr,
                      "tunefarm run: --input must hold exactly %d float32 values (input '%s')\n", n,
                      name);
        abi.free(model);
        return kExitUsage;
      }
    } else {
      inputs[i].resize(n);
      for (float& v : inputs[i]) v = uniform(rng);
    }
  }
  for (int i = 0; i < abi.num_outputs(); ++i) {
    int64_t dims[16];
    outputs[i].resize(elements(abi.output(i, dims, nullptr), dims));
  }
  std::vector<const float*> in_ptrs;
  std::vector<float*> out_ptrs;
  for (auto& v : inputs) in_ptrs.push_back(v.data());
  for (auto& v : outputs) out_ptrs.push_back(v.data());
  if (abi.run(model, in_ptrs.data(), out_ptrs.data()) != 0) {
    absl::FPrintF(stderr, "tunefarm run: %s\n", abi.error());
    abi.free(model);
    return kExitFailure;
  }
  const int runs = absl::GetFlag(FLAGS_runs) > 0 ? absl::GetFlag(FLAGS_runs) : 20;
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    abi.run(model, in_ptrs.data(), out_ptrs.data());
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  absl::PrintF("%s: %d calls, %d threads, latency median %.3f ms, min %.3f ms over %d runs\n", path,
               abi.num_calls(), omp_get_max_threads(), times[times.size() / 2] * 1e3,
               times[0] * 1e3, times.size());
  if (absl::GetFlag(FLAGS_profile)) {
    const int calls = abi.num_calls();
    std::vector<double> total(calls, 0.0), once(calls);
    for (int r = 0; r < runs; ++r) {
      abi.run_profiled(model, in_ptrs.data(), out_ptrs.data(), once.data());
      for (int c = 0; c < calls; ++c) total[c] += once[c] / runs;
    }
    double sum = 0;
    for (double t : total) sum += t;
    std::vector<int> order(calls);
    for (int c = 0; c < calls; ++c) order[c] = c;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return total[a] > total[b]; });
    absl::PrintF("%-36s %9s %6s\n", "call", "mean ms", "share");
    for (int c : order) {
      absl::PrintF("%-36s %9.3f %5.1f%%\n", abi.call_name(c), total[c] * 1e3, 100 * total[c] / sum);
    }
  }
  int rc = kExitOk;
  if (!absl::GetFlag(FLAGS_save_output).empty()) {
    std::ofstream out(UserPath(absl::GetFlag(FLAGS_save_output)), std::ios::binary);
    out.write(reinterpret_cast<const char*>(outputs[0].data()), outputs[0].size() * sizeof(float));
  }
  if (!absl::GetFlag(FLAGS_expect).empty()) {
    std::vector<float> want;
    if (!ReadFloats(UserPath(absl::GetFlag(FLAGS_expect)), outputs[0].size(), &want)) {
      absl::FPrintF(stderr, "tunefarm run: --expect must hold exactly %d float32 values\n",
                    outputs[0].size());
      rc = kExitUsage;
    } else {
      double max_abs = 0, max_rel = 0;
      int64_t bad = 0;
      for (size_t k = 0; k < want.size(); ++k) {
        const double d = std::fabs(static_cast<double>(outputs[0][k]) - want[k]);
        max_abs = std::max(max_abs, d);
        max_rel = std::max(max_rel, d / std::max(1e-30, std::fabs(static_cast<double>(want[k]))));
        if (!(d <= 1e-4 + 1e-3 * std::fabs(want[k]))) ++bad;
      }
      absl::PrintF(
          "output vs expected: max abs error %.3g, max rel error %.3g, %d of %d outside "
          "1e-4 + 1e-3·|expected|\n",
          max_abs, max_rel, bad, want.size());
      if (bad > 0) rc = kExitFailure;
    }
  }
  abi.free(model);
  return rc;
}

}  // namespace tunefarm::cli
