// Tuned fp32 dense against OpenBLAS, measured side by side in this process.
//
//   bazel run -c opt //bench:tune_dense -- [--quick]
//
// Each shape is tuned on the embedded local farm (1000 trials, --quick: 48), then the winner
// and cblas_sgemm (C = A·Wᵀ, the same operation) are timed here with the same thread count.
// Prints a table and `RESULT ratio_1t_1024=… ratio_2t_1024=… ratio_512x16x512=…
// ratio_1024x32x512=… ratio_49x512x4608=…` (ours over OpenBLAS in GFLOP/s; > 1 is faster).
#include <cblas.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/tune_common.h"

extern "C" void omp_set_num_threads(int);

namespace tunefarm::bench {
namespace {

struct Shape {
  std::string key;
  int64_t m, n, k;
  int threads;
};

}  // namespace

int Run(bool quick) {
  const std::vector<Shape> shapes = {
      {"ratio_1t_1024", 1024, 1024, 1024, 1},  {"ratio_2t_1024", 1024, 1024, 1024, 2},
      {"ratio_512x16x512", 512, 16, 512, 1},   {"ratio_1024x32x512", 1024, 32, 512, 1},
      {"ratio_49x512x4608", 49, 512, 4608, 1},
  };
  std::vector<std::pair<std::string, std::string>> result;
  std::printf("%-20s %7s %7s %10s %10s %7s  %s\n", "shape (MxNxK)", "threads", "trials",
              "ours GF/s", "BLAS GF/s", "ratio", "best config");
  for (const Shape& s : shapes) {
    TuneBenchOptions o;
    o.trials = quick ? 48 : 1000;
    o.threads = s.threads;
    auto tuned = TuneAndLoad("dense", {s.m, s.n, s.k}, o);
    if (!tuned.ok()) {
      std::fprintf(stderr, "%s: %s\n", s.key.c_str(), tuned.status().ToString().c_str());
      return 1;
    }
    const int repeats = quick ? 10 : 30;
    omp_set_num_threads(s.threads);
    double ours = TimeKernel(*tuned, repeats);
    openblas_set_num_threads(s.threads);
    auto& a = tuned->args[0];
    auto& w = tuned->args[1];
    auto& c = tuned->args[2];
    double blas = TimeMedian(
        [&] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(s.m),
                      static_cast<int>(s.n), static_cast<int>(s.k), 1.0f, a.data<float>(),
                      static_cast<int>(s.k), w.data<float>(), static_cast<int>(s.k), 0.0f,
                      c.data<float>(), static_cast<int>(s.n));
        },
        repeats);
    double flop = 2.0 * s.m * s.n * s.k;
    std::printf(
        "%-20s %7d %7d %10.1f %10.1f %7.2f  %s\n",
        (std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k)).c_str(),
        s.threads, tuned->result.trials, flop / ours * 1e-9, flop / blas * 1e-9, blas / ours,
        tuned->result.best_config.c_str());
    std::fflush(stdout);
    result.emplace_back(s.key, Fixed(blas / ours));
  }
  PrintResult(result);
  return 0;
}

}  // namespace tunefarm::bench
