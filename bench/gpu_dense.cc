// Tuned dense (C = A·Wᵀ) on an NVIDIA GPU against cuBLAS, measured side by side in this
// process.
//
//   bazel run -c opt //bench:gpu_dense -- [--quick]
//
// Each workload is tuned on the embedded local farm with one GPU worker (`--device cuda:0`;
// 500 trials, --quick: 32), then the winner's PTX and cublasSgemm / cublasGemmEx are launched
// here on the same device buffers, checked against each other and timed with CUDA events
// (median of 10 repeats of >= 5 ms, warm L2 for both). float32 is tuned with the `dense`
// template (CUDA cores, like cublasSgemm). float16 means half inputs with float32 accumulation
// and output, tuned with `dense_tensorcore` (WMMA tensor cores) against cublasGemmEx on tensor
// cores (CUBLAS_COMPUTE_32F, the default algorithm).
//
// Last line: `RESULT ratio_fp32_1024=… ratio_fp16_1024=… ratio_512x16x512=…
// ratio_512x64x512=… ratio_256x256x256=… ratio_1024x32x512=… ratio_fp16_512x16x512=… …
// correct=yes|no` (cuBLAS time / ours: > 1 is faster than cuBLAS), or `RESULT skipped=no_gpu`
// / `skipped=no_cublas` where there is none (the reason is printed).
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bench/bench_util.h"
#include "bench/cublas.h"
#include "bench/gpu_runner.h"
#include "farm/farm_setup.h"
#include "rpc_server/tensors.h"
#include "tuner/tuning/builder.h"
#include "tuner/tuning/measurer.h"
#include "tuner/tuning/strategy_factory.h"
#include "tuner/tuning/tuner.h"

namespace tunefarm::bench {
namespace {

struct Workload {
  std::string key;
  int m, n, k;
  bool fp16;
};

struct Outcome {
  double ours_s = 0, blas_s = 0;
  double max_error = 0;
  std::string config;
};

absl::StatusOr<tuner::TuneResult> TuneOnGpu(const tuner::TuneTask& task, int trials) {
  FarmSetupOptions fo;
  fo.key = task.device_key;
  fo.target = task.target.str;
  fo.device = "cuda:0";
  auto farm = StartFarm(fo);
  if (!farm.ok()) return farm.status();
  auto strategy = tuner::MakeStrategy("xgb", task, /*seed=*/0, nullptr);
  if (!strategy.ok()) return strategy.status();
  tuner::TrackerMeasurerOptions mo;
  mo.job_id = absl::StrCat("bench-gpu-", task.workload.ToString());
  mo.device_key = task.device_key;
  mo.timing.set_repeat(3);
  mo.timing.set_min_repeat_ms(5);
  tuner::TrackerMeasurer measurer((*farm)->client.get(), mo);
  tuner::TuneOptions to;
  to.trials = trials;
  to.batch_size = 16;
  to.build_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  to.top_k = 1;
  auto result =
      tuner::Tune(task, **strategy, measurer, nullptr, to, [&](const tuner::TuneProgress& p) {
        std::fprintf(stderr, "\r  %s %d/%d trials, best %.1f GFLOP/s   ",
                     task.workload.ToString().c_str(), p.trials_done, p.trials_total,
                     p.best_gflops);
      });
  std::fprintf(stderr, "\n");
  return result;
}

absl::StatusOr<Outcome> RunOne(GpuRunner& gpu, const Cublas& blas, const Workload& w,
                               const std::string& target, int trials) {
  // The templates that apply: the tiled GEMM (CUDA cores, or tensor cores for float16), and
  // in-block split-K for skinny outputs; each gets an equal share of the trials.
  std::vector<std::string> templates = {w.fp16 ? "dense_tensorcore" : "dense"};
  if (int64_t{w.m} * w.n <= 64 * 1024) templates.push_back("dense_splitk");
  std::optional<tuner::TuneTask> task;
  std::optional<tuner::TuneResult> tuned;
  for (const std::string& name : templates) {
    auto t =
        tuner::MakeTask(name, {w.m, w.n, w.k}, w.fp16 ? "float16" : "float32", target, "gpu-bench");
    if (!t.ok()) return t.status();
    auto r = TuneOnGpu(*t, trials / static_cast<int>(templates.size()));
    if (!r.ok()) return r.status();
    if (r->best_index >= 0 && (!tuned || r->best_cost_s < tuned->best_cost_s)) {
      task = *t;
      tuned = *r;
    }
  }
  if (!tuned) return absl::InternalError("no valid config was found");
  tuner::BuildResult best = tuner::BuildConfig(*task, tuned->best_index);
  if (!best.status.ok()) return best.status;

  const size_t in_bytes = w.fp16 ? 2 : 4;
  const size_t a_elems = size_t(w.m) * w.k, w_elems = size_t(w.n) * w.k,
               c_elems = size_t(w.m) * w.n;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto host_input = [&](size_t n) {
    std::vector<uint16_t> half(n);
    std::vector<float> full(n);
    for (size_t i = 0; i < n; ++i) {
      full[i] = dist(rng);
      half[i] = FloatToHalf(full[i]);
    }
    return std::make_pair(full, half);
  };
  auto [a_f, a_h] = host_input(a_elems);
  auto [w_f, w_h] = host_input(w_elems);
  auto a = gpu.Alloc(a_elems * in_bytes);
  auto wt = gpu.Alloc(w_elems * in_bytes);
  auto c_ours = gpu.Alloc(c_elems * 4);
  auto c_blas = gpu.Alloc(c_elems * 4);
  for (const auto* p : {&a, &wt, &c_ours, &c_blas}) {
    if (!p->ok()) return p->status();
  }
  if (absl::Status s = gpu.Upload(*a, w.fp16 ? static_cast<const void*>(a_h.data()) : a_f.data(),
                                  a_elems * in_bytes);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = gpu.Upload(*wt, w.fp16 ? static_cast<const void*>(w_h.data()) : w_f.data(),
                                  w_elems * in_bytes);
      !s.ok()) {
    return s;
  }
  auto ours = gpu.LoadKernel(best.artifact, {*a, *wt, *c_ours});
  if (!ours.ok()) return ours.status();
  auto cublas = [&] { return blas.Dense(w.fp16, w.m, w.n, w.k, *a, *wt, *c_blas); };
  if (absl::Status s = (*ours)(); !s.ok()) return s;
  if (absl::Status s = cublas(); !s.ok()) return s;
  std::vector<float> got(c_elems), want(c_elems);
  if (absl::Status s = gpu.Download(got.data(), *c_ours, c_elems * 4); !s.ok()) return s;
  if (absl::Status s = gpu.Download(want.data(), *c_blas, c_elems * 4); !s.ok()) return s;
  Outcome out;
  for (size_t i = 0; i < c_elems; ++i) {
    double err = std::abs(got[i] - want[i]) / (1e-3 + 1e-3 * std::abs(want[i]));
    if (!(err <= out.max_error)) out.max_error = std::isnan(err) ? INFINITY : err;
  }
  out.config = absl::StrCat(task->tmpl->name(), " ", tuned->best_config);
  auto t_ours = gpu.Time(*ours);
  if (!t_ours.ok()) return t_ours.status();
  auto t_blas = gpu.Time(cublas);
  if (!t_blas.ok()) return t_blas.status();
  out.ours_s = *t_ours;
  out.blas_s = *t_blas;
  return out;
}

}  // namespace

int Run(bool quick) {
  auto gpu = GpuRunner::Create(0);
  if (!gpu.ok()) {
    std::printf("gpu_dense: %s\n", std::string(gpu.status().message()).c_str());
    PrintResult({{"skipped", "no_gpu"}});
    return 0;
  }
  auto blas = Cublas::Load();
  if (!blas.ok()) {
    std::printf("gpu_dense: %s\n", std::string(blas.status().message()).c_str());
    PrintResult({{"skipped", "no_cublas"}});
    return 0;
  }
  // LLVM 16's NVPTX backend targets up to sm_90; newer devices run sm_90 PTX (JIT).
  std::string arch = (*gpu)->device().Arch();
  if (arch > "sm_90" || arch.size() > 5) arch = "sm_90";
  const std::string target = absl::StrCat("cuda -arch=", arch);
  std::printf("device: %s (%s), target \"%s\"\n", (*gpu)->device().name.c_str(),
              (*gpu)->device().Arch().c_str(), target.c_str());
  std::vector<Workload> workloads = {
      {"ratio_fp32_1024", 1024, 1024, 1024, false}, {"ratio_fp16_1024", 1024, 1024, 1024, true},
      {"ratio_512x16x512", 512, 16, 512, false},    {"ratio_512x64x512", 512, 64, 512, false},
      {"ratio_256x256x256", 256, 256, 256, false},  {"ratio_1024x32x512", 1024, 32, 512, false},
  };
  for (const Workload& w : std::vector<Workload>(workloads.begin() + 2, workloads.end())) {
    workloads.push_back({absl::StrCat("ratio_fp16_", w.key.substr(6)), w.m, w.n, w.k, true});
  }
  const int trials = quick ? 32 : 500;
  std::vector<std::pair<std::string, std::string>> result;
  bool all_correct = true;
  std::printf("%-16s %-8s %10s %10s %7s %9s  %s\n", "shape (MxNxK)", "dtype", "ours GF/s",
              "cuBLAS GF/s", "ratio", "max err", "best config");
  for (const Workload& w : workloads) {
    auto o = RunOne(**gpu, **blas, w, target, trials);
    if (!o.ok()) {
      std::printf("%s: %s\n", w.key.c_str(), o.status().ToString().c_str());
      result.emplace_back(w.key, "error");
      all_correct = false;
      continue;
    }
    double flop = 2.0 * w.m * w.n * w.k;
    bool correct = o->max_error <= 1.0;
    all_correct = all_correct && correct;
    std::printf("%-16s %-8s %10.1f %10.1f %7.3f %9.2g  %s\n",
                absl::StrFormat("%dx%dx%d", w.m, w.n, w.k).c_str(), w.fp16 ? "float16" : "float32",
                flop / o->ours_s * 1e-9, flop / o->blas_s * 1e-9, o->blas_s / o->ours_s,
                o->max_error, o->config.c_str());
    result.emplace_back(w.key, absl::StrFormat("%.3f", o->blas_s / o->ours_s));
  }
  result.emplace_back("correct", all_correct ? "yes" : "no");
  PrintResult(result);
  return 0;
}

}  // namespace tunefarm::bench
