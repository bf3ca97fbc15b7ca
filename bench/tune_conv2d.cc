// Tuned conv2d (the conv2d_nchwc_packed template: NCHW input and output, channel-blocked
// inside, weights pre-packed) on ResNet-18 layers, batch 1, against oneDNN measured
// side by side in this process, one thread each.
//
//   bazel run -c opt //bench:tune_conv2d -- [--quick]
//
// oneDNN gets its best case: its own blocked layouts (format any) with the reorders done
// outside the timed region, the faster of its direct and Winograd algorithms
// (library_baselines.h), timed side by side with ours; ours gets its weights pre-packed too,
// and is timed as the whole kernel, input padding/packing and output unpacking included.
// `RESULT ratio_min=… ratio_median=…` (ours over oneDNN in GFLOP/s; > 1 is faster).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/library_baselines.h"
#include "bench/tune_common.h"

extern "C" void omp_set_num_threads(int);

namespace tunefarm::bench {
namespace {

// The channel-blocked template with pre-packed weights (TVM's conv2d_NCHWc after
// alter-layout): like oneDNN, which gets its weights in its preferred blocked format, the
// weight transform is done once outside the timed kernel. Input and output stay NCHW.
constexpr char kTemplate[] = "conv2d_nchwc_packed";

struct Layer {
  std::string name;
  int64_t c, hw, k, r, stride, pad;
};

}  // namespace

int Run(bool quick) {
  const std::vector<Layer> layers = {
      {"conv2_x 64x56 3x3", 64, 56, 64, 3, 1, 1},
      {"conv3_x 128x28 3x3", 128, 28, 128, 3, 1, 1},
      {"conv4_x 256x14 3x3", 256, 14, 256, 3, 1, 1},
      {"conv5_x 512x7 3x3", 512, 7, 512, 3, 1, 1},
      {"conv3_1 64->128 3x3 s2", 64, 56, 128, 3, 2, 1},
  };
  std::vector<double> ratios;
  std::printf("%-24s %7s %10s %10s %7s  %s\n", "ResNet-18 layer (N=1)", "trials", "ours GF/s",
              "oneDNN", "ratio", "best config");
  for (const Layer& l : layers) {
    TuneBenchOptions o;
    o.trials = quick ? 32 : 500;
    o.threads = 1;
    auto tuned = TuneAndLoad(kTemplate, {1, l.c, l.hw, l.hw, l.k, l.r, l.r, l.stride, l.pad}, o);
    if (!tuned.ok()) {
      std::fprintf(stderr, "%s: %s\n", l.name.c_str(), tuned.status().ToString().c_str());
      return 1;
    }
    const int repeats = quick ? 5 : 15;
    omp_set_num_threads(1);
    OneDnnConvShape shape;
    shape.c = l.c, shape.h = shape.w = l.hw, shape.f = l.k, shape.r = shape.s = l.r;
    shape.stride = l.stride, shape.pad = l.pad;
    const std::vector<Baseline> libs = ConvBaselines(shape, OneDnnTypes::kF32);
    const SideBySide t = TimeAgainst(KernelCall(*tuned), libs, repeats, quick ? 3 : 5);
    if (t.fastest < 0) {
      std::fprintf(stderr, "%s: oneDNN refused the convolution\n", l.name.c_str());
      return 1;
    }
    const double ours = t.ours_s, dnnl_s = t.fastest_s();
    double flop = tuned->task.workload.flop;
    std::printf("%-24s %7d %10.1f %10.1f %7.2f  %s  (%s)\n", l.name.c_str(), tuned->result.trials,
                flop / ours * 1e-9, flop / dnnl_s * 1e-9, dnnl_s / ours,
                tuned->result.best_config.c_str(), libs[t.fastest].impl.c_str());
    std::fflush(stdout);
    ratios.push_back(dnnl_s / ours);
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  PrintResult({{"ratio_min", Fixed(sorted.front())}, {"ratio_median", Fixed(Median(ratios))}});
  return 0;
}

}  // namespace tunefarm::bench
