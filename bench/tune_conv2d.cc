// Tuned conv2d (the conv2d_nchwc_packed template: NCHW input and output, channel-blocked
// inside, weights pre-packed) on ResNet-18 layers, batch 1, against oneDNN measured
// side by side in this process, one thread each.
//
//   bazel run -c opt //bench:tune_conv2d -- [--quick]
//
// oneDNN gets its best case: its own blocked layouts (format any) with the reorders done
// outside the timed region; ours gets its weights pre-packed too, and is timed as the whole
// kernel, input padding/packing and output unpacking included.
// `RESULT ratio_min=… ratio_median=…` (ours over oneDNN in GFLOP/s; > 1 is faster).
#include <cstdio>
#include <dnnl.hpp>
#include <string>
#include <vector>

#include "bench/bench_util.h"
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

// Median seconds of one oneDNN convolution (forward inference, direct algorithm).
double TimeOneDnn(const Layer& l, int repeats) {
  using dnnl::memory;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  int64_t oh = (l.hw + 2 * l.pad - l.r) / l.stride + 1;
  memory::desc src({1, l.c, l.hw, l.hw}, memory::data_type::f32, memory::format_tag::any);
  memory::desc wei({l.k, l.c, l.r, l.r}, memory::data_type::f32, memory::format_tag::any);
  memory::desc dst({1, l.k, oh, oh}, memory::data_type::f32, memory::format_tag::any);
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::convolution_direct, src, wei, dst,
                                       {l.stride, l.stride}, {l.pad, l.pad}, {l.pad, l.pad});
  dnnl::convolution_forward::primitive_desc pd(desc, eng);
  memory msrc(pd.src_desc(), eng), mwei(pd.weights_desc(), eng), mdst(pd.dst_desc(), eng);
  float* p = static_cast<float*>(msrc.get_data_handle());
  for (size_t i = 0; i < pd.src_desc().get_size() / sizeof(float); ++i) p[i] = 0.01f * (i % 7);
  float* w = static_cast<float*>(mwei.get_data_handle());
  for (size_t i = 0; i < pd.weights_desc().get_size() / sizeof(float); ++i) w[i] = 0.01f * (i % 5);
  dnnl::convolution_forward conv(pd);
  return TimeMedian(
      [&] {
        conv.execute(s, {{DNNL_ARG_SRC, msrc}, {DNNL_ARG_WEIGHTS, mwei}, {DNNL_ARG_DST, mdst}});
        s.wait();
      },
      repeats);
}

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
    const int repeats = quick ? 10 : 30;
    omp_set_num_threads(1);
    double ours = TimeKernel(*tuned, repeats);
    double dnnl_s = TimeOneDnn(l, repeats);
    double flop = tuned->task.workload.flop;
    std::printf("%-24s %7d %10.1f %10.1f %7.2f  %s\n", l.name.c_str(), tuned->result.trials,
                flop / ours * 1e-9, flop / dnnl_s * 1e-9, dnnl_s / ours,
                tuned->result.best_config.c_str());
    std::fflush(stdout);
    ratios.push_back(dnnl_s / ours);
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  PrintResult({{"ratio_min", Fixed(sorted.front())}, {"ratio_median", Fixed(Median(ratios))}});
  return 0;
}

}  // namespace tunefarm::bench
