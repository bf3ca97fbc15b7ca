// Tuned convolutions of ResNet-18 (batch 1, fp32, one thread) against oneDNN measured side by side
// in this process.
//
//   bazel run -c opt //bench:tune_conv2d -- [--quick] [--only=SUBSTRING] [--trials=N]
//
// Each layer is tuned as a user tunes it (bench_cases.h): the direct algorithm in the
// channel-blocked program conv2d_blocked.te and, for the 3×3 stride-1 layers, the Winograd
// programs conv2d_winograd.te (F(4×4, 3×3)) and conv2d_winograd_f2.te (F(2×2, 3×3)), each on
// the embedded local farm with the default strategy; their winners are timed in turn here and
// the fastest is ours. oneDNN gets its best case: its preferred blocked layouts (format any),
// weights reordered outside the timed call, the faster of its direct and Winograd algorithms
// (library_baselines.h), timed side by side with ours (alternating rounds spanning at least 2 s;
// the ratio is the median of the per-round ratios, library_baselines.h). Like oneDNN's, our input
// and output are in the channel-blocked layout (NCHW16c), as a network compiled with its layouts
// altered passes them between layers. GFLOP/s are effective: the direct algorithm's operations over
// the time. `peak` is ours over the FMA peak of one core, measured beside each layer, in the
// operations our kernel performs (a Winograd kernel performs fewer). The process re-executes itself
// so that oneDNN's buffers get huge pages as ours do (openblas_env.h).
//
// The last line: `RESULT ratio_min=… ratio_median=…` (ours over oneDNN; > 1: ours is faster).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "bench/bench_cases.h"
#include "bench/bench_util.h"
#include "bench/library_baselines.h"
#include "bench/openblas_env.h"
#include "bench/tune_common.h"
#include "common/machine_peak.h"

ABSL_FLAG(bool, quick, false, "A short run (few trials, fewer timed rounds) of every layer.");
ABSL_FLAG(std::string, only, "", "Run only the layers whose label contains this; default all.");
ABSL_FLAG(int, trials, 0, "Trials per algorithm (default 400, --quick 16).");

namespace tunefarm::bench {

int Run(bool quick, const std::string& only, int trials) {
  // ResNet-18's 3×3 convolutions, {N, C, H, W, F, R, S, stride, pad}.
  const std::vector<Case> layers = {
      {"conv2_x 64x56 3x3", Op::kConv, 1, false, {1, 64, 56, 56, 64, 3, 3, 1, 1}},
      {"conv3_x 128x28 3x3", Op::kConv, 1, false, {1, 128, 28, 28, 128, 3, 3, 1, 1}},
      {"conv4_x 256x14 3x3", Op::kConv, 1, false, {1, 256, 14, 14, 256, 3, 3, 1, 1}},
      {"conv5_x 512x7 3x3", Op::kConv, 1, false, {1, 512, 7, 7, 512, 3, 3, 1, 1}},
      {"conv3_1 64->128 3x3 s2", Op::kConv, 1, false, {1, 64, 56, 56, 128, 3, 3, 2, 1}},
  };
  TuneBenchOptions o;
  o.trials = trials > 0 ? trials : quick ? 16 : 400;
  const int repeats = quick ? 3 : 10;
  const int rounds = quick ? 3 : 7;
  const double min_seconds = SideBySideSeconds(quick);
  std::printf("%-24s %7s %10s %10s %7s %5s %6s  %-22s %s\n", "ResNet-18 layer (N=1)", "trials",
              "ours GF/s", "oneDNN", "ratio", "peak", "to_90", "our space", "oneDNN kernel");
  std::vector<double> ratios;
  for (const Case& l : layers) {
    if (!only.empty() && l.label.find(only) == std::string::npos) continue;
    absl::StatusOr<TunedAlgorithm> tuned = TuneFastestAlgorithm(l, o, repeats, rounds, min_seconds);
    if (!tuned.ok()) {
      std::fprintf(stderr, "%s: %s\n", l.label.c_str(), tuned.status().ToString().c_str());
      return 1;
    }
    TunedKernel& ours = tuned->kernel;
    const std::vector<Baseline> libs = BaselinesFor(l);
    const SideBySide t = TimeAgainst(KernelCall(ours), libs, repeats, rounds, min_seconds);
    if (t.fastest < 0) {
      std::fprintf(stderr, "%s: oneDNN refused the convolution\n", l.label.c_str());
      return 1;
    }
    const double flop = DirectFlop(l, ours.task);
    const double peak = ours.task.workload.flop / t.ours_s * 1e-9 / MeasureFmaPeakGflops(l.threads);
    const double ratio = t.fastest_ratio();
    std::printf("%-24s %7d %10.1f %10.1f %7.2f %5.2f %6d  %-22s %s\n", l.label.c_str(),
                ours.result.trials, flop / t.ours_s * 1e-9, flop / t.fastest_s() * 1e-9, ratio,
                peak, TrialsTo90(ours.result.curve_gflops, ours.result.best_gflops),
                tuned->space.c_str(), libs[t.fastest].impl.c_str());
    std::printf("  best config %s\n", ours.result.best_config.c_str());
    std::fflush(stdout);
    ratios.push_back(ratio);
  }
  if (ratios.empty()) {
    std::fprintf(stderr, "no layer matches --only=%s\n", only.c_str());
    return 1;
  }
  PrintResult({{"ratio_min", Fixed(*std::min_element(ratios.begin(), ratios.end()))},
               {"ratio_median", Fixed(Median(ratios))}});
  return 0;
}

}  // namespace tunefarm::bench

int main(int argc, char** argv) {
  tunefarm::bench::ReexecWithLibrariesAtTheirBest(argv);
  absl::ParseCommandLine(argc, argv);
  return tunefarm::bench::Run(absl::GetFlag(FLAGS_quick), absl::GetFlag(FLAGS_only),
                              absl::GetFlag(FLAGS_trials));
}
