// Generated schedule spaces against hand templates and against oneDNN, with the same trial
// budget, measured side by side in this process (one thread each).
//
//   bazel run -c opt //bench:auto_space -- [--quick] [--only=SUBSTRING]
//
// Part 1: a template's operator tuned in the template's space and in the space generated from
// its computation (`--space generated`): dense, batch_matmul, depthwise_conv2d and the
// channel-blocked conv2d_nchwc, whose computation (through NCHW16c) is written as a program
// (examples/programs/conv2d_nchwc.te); the space generated from that template's plain NCHW
// reference is shown beside it (`ratio_nchw_math`, not in the minimum).
// Part 2: operators with no template, written in the tensor-expression language
// (examples/programs/*.te), against oneDNN where oneDNN has the operation: layer
// normalization, max pooling, global average pooling, inner product with bias and GELU,
// convolution with bias and ReLU, and batched matmul + softmax for the attention scores.
// oneDNN gets its best case: its preferred layouts (format any) for weights and activations,
// the reorders outside the timed region, and its fused post-ops. Pooling takes its source as
// given, and oneDNN's fastest is channel-blocked (nChw16c): the pooling programs are written
// in that same layout (max_pool_nchwc.te, global_avg_pool_nchwc.te), so both sides read the
// same bytes. The convolution program is written in that layout too
// (conv2d_bias_relu_nchwc.te), its filter a weight in a blocked layout, as oneDNN's filter is
// reordered into its own. The stencil has no oneDNN counterpart and is reported against the
// machine's read bandwidth only.
//
// The two kernels of a line are timed side by side (at least eleven alternating rounds, five
// with --quick, spanning at least 2 s, 0.25 s with --quick; the GFLOP/s are each side's median
// and the ratio the median of the per-round ratios), so noise on this shared machine hits both. A
// program's weights (weight(...): dense+bias+GELU's W and b, the convolution's filter) may be
// packed once ahead of time by the tuned config, as oneDNN's are reordered outside its timed
// region.
//
// Each line also gives `peak`: GFLOP/s over this core's FMA peak, or for memory-bound
// operators, bytes read and written per second over this core's read bandwidth (both
// measured at the start of this run). The last line is
// `RESULT ratio_vs_template_min=… ratio_vs_onednn_min=… ops_tuned=…` (ratios > 1: generated
// is faster).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <dnnl.hpp>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "bench/bench_util.h"
#include "bench/onednn_run.h"
#include "bench/tune_common.h"
#include "common/machine_peak.h"
#include "tuner/tuning/task.h"

extern "C" void omp_set_num_threads(int);

namespace tunefarm::bench {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

OneDnnPtr OneDnnLayerNorm(int64_t n, int64_t d) {
  auto run = std::make_shared<OneDnnRun>();
  OneDnnRun& r = *run;
  memory::desc md({n, d}, Dt::f32, Tag::ab);
  dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_inference, md, 1e-5f,
                                               dnnl::normalization_flags::use_scale_shift);
  dnnl::layer_normalization_forward::primitive_desc pd(desc, r.eng);
  memory src = r.Make(md), dst = r.Make(md), ss = r.Make(pd.weights_desc());
  r.steps.push_back({dnnl::layer_normalization_forward(pd),
                     {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}, {DNNL_ARG_SCALE_SHIFT, ss}}});
  return run;
}

OneDnnPtr OneDnnPool(dnnl::algorithm alg, int64_t c, int64_t hw, int64_t k, int64_t stride) {
  auto run = std::make_shared<OneDnnRun>();
  OneDnnRun& r = *run;
  const int64_t out = (hw - k) / stride + 1;
  // Pooling takes its source as it comes (format any is refused there): blocked by 16 channels,
  // oneDNN's fastest layout for it on AVX-512.
  memory::desc src_md({1, c, hw, hw}, Dt::f32, c % 16 == 0 ? Tag::nChw16c : Tag::nchw);
  memory::desc dst_md({1, c, out, out}, Dt::f32, Tag::any);
  dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src_md, dst_md,
                                   {stride, stride}, {k, k}, {0, 0}, {0, 0});
  dnnl::pooling_forward::primitive_desc pd(desc, r.eng);
  memory src = r.Make(pd.src_desc()), dst = r.Make(pd.dst_desc());
  r.steps.push_back({dnnl::pooling_forward(pd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}});
  return run;
}

dnnl::primitive_attr Eltwise(dnnl::algorithm alg) {
  dnnl::post_ops po;
  po.append_eltwise(1.f, alg, 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  return attr;
}

OneDnnPtr OneDnnDenseBiasGelu(int64_t m, int64_t n, int64_t k) {
  auto run = std::make_shared<OneDnnRun>();
  OneDnnRun& r = *run;
  memory::desc src({m, k}, Dt::f32, Tag::any), wei({n, k}, Dt::f32, Tag::any);
  memory::desc bias({n}, Dt::f32, Tag::a), dst({m, n}, Dt::f32, Tag::any);
  dnnl::inner_product_forward::desc desc(dnnl::prop_kind::forward_inference, src, wei, bias, dst);
  dnnl::inner_product_forward::primitive_desc pd(desc, Eltwise(dnnl::algorithm::eltwise_gelu_erf),
                                                 r.eng);
  r.steps.push_back({dnnl::inner_product_forward(pd),
                     {{DNNL_ARG_SRC, r.Make(pd.src_desc())},
                      {DNNL_ARG_WEIGHTS, r.Make(pd.weights_desc())},
                      {DNNL_ARG_BIAS, r.Make(pd.bias_desc())},
                      {DNNL_ARG_DST, r.Make(pd.dst_desc())}}});
  return run;
}

OneDnnPtr OneDnnConvBiasRelu(int64_t c, int64_t hw, int64_t f) {
  auto run = std::make_shared<OneDnnRun>();
  OneDnnRun& r = *run;
  // The source in nChw16c, the layout the program reads (and oneDNN's own choice for 64
  // channels on AVX-512); weights and destination in whatever layout oneDNN prefers.
  memory::desc src({1, c, hw, hw}, Dt::f32, Tag::nChw16c), wei({f, c, 3, 3}, Dt::f32, Tag::any);
  memory::desc bias({f}, Dt::f32, Tag::a), dst({1, f, hw, hw}, Dt::f32, Tag::any);
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                       dnnl::algorithm::convolution_direct, src, wei, bias, dst,
                                       {1, 1}, {1, 1}, {1, 1});
  dnnl::convolution_forward::primitive_desc pd(desc, Eltwise(dnnl::algorithm::eltwise_relu), r.eng);
  r.steps.push_back({dnnl::convolution_forward(pd),
                     {{DNNL_ARG_SRC, r.Make(pd.src_desc())},
                      {DNNL_ARG_WEIGHTS, r.Make(pd.weights_desc())},
                      {DNNL_ARG_BIAS, r.Make(pd.bias_desc())},
                      {DNNL_ARG_DST, r.Make(pd.dst_desc())}}});
  return run;
}

// softmax(Q·Kᵀ / √d) per head: a batched matmul with the scale folded in, then softmax.
OneDnnPtr OneDnnAttention(int64_t heads, int64_t len, int64_t d) {
  auto run = std::make_shared<OneDnnRun>();
  OneDnnRun& r = *run;
  memory::desc q({heads, len, d}, Dt::f32, Tag::abc);
  memory::desc kt({heads, d, len}, Dt::f32, Tag::acb);  // K stored [h][j][d], read as Kᵀ.
  memory::desc s({heads, len, len}, Dt::f32, Tag::abc);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {1.0f / std::sqrt(static_cast<float>(d))});
  dnnl::matmul::primitive_desc mm(dnnl::matmul::desc(q, kt, s), attr, r.eng);
  memory ms = r.Make(s), mp = r.Make(s);
  r.steps.push_back(
      {dnnl::matmul(mm),
       {{DNNL_ARG_SRC, r.Make(q)}, {DNNL_ARG_WEIGHTS, r.Make(kt)}, {DNNL_ARG_DST, ms}}});
  dnnl::softmax_forward::primitive_desc sm(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, s, 2), r.eng);
  r.steps.push_back({dnnl::softmax_forward(sm), {{DNNL_ARG_SRC, ms}, {DNNL_ARG_DST, mp}}});
  return run;
}

// The fraction of the binding limit: compute (the FMA peak) or memory (the read rate of a
// working set of the kernel's bytes), whichever the kernel is closer to.
double PeakFraction(const TunedKernel& k, double seconds, double fma_peak) {
  const double compute = k.task.workload.flop / seconds * 1e-9 / fma_peak;
  return std::max(compute, ReadLimitFraction(ArgBytes(k), seconds));
}

}  // namespace

int Run(bool quick, const std::string& only) {
  // --only: the lines whose label contains it (the RESULT's minima then cover only those).
  auto selected = [&](const std::string& label) {
    return only.empty() || label.find(only) != std::string::npos;
  };
  TuneBenchOptions o;
  o.trials = quick ? 12 : 200;
  o.threads = 1;
  // Timed calls per round, and rounds: kernels compared side by side alternate, and each side's
  // median round is its time (the full run takes more of both: ratios of 1.00 +- 0.05 between
  // equal kernels are this machine's noise).
  const int repeats = quick ? 3 : 20;
  const int rounds = quick ? 5 : 11;
  const double fma_peak = MeasureFmaPeakGflops();
  const double read_gbs = MeasureReadBandwidthGBs();
  std::printf("machine: FMA peak %.1f GFLOP/s, read bandwidth %.1f GB/s (one core)\n\n", fma_peak,
              read_gbs);

  // Part 1: generated space against the template's, same budget. Each template is tuned once
  // and compared with each of its generated variants: by default the space generated from the
  // template's own computation (`generated:<template>`), or one generated from a program
  // written in the language that computes what the template computes.
  struct Variant {
    std::string label;
    std::string program;  // Empty: the template's computation.
    absl::flat_hash_map<std::string, int64_t> shapes;
    bool in_min = true;  // Counted in ratio_vs_template_min.
  };
  struct TemplateCase {
    std::string label, tmpl;
    std::vector<int64_t> args;
    std::vector<Variant> variants = {Variant{}};
  };
  const std::vector<TemplateCase> templates = {
      {"dense 512x512x512", "dense", {512, 512, 512}},
      {"batch_matmul 8x128x128x128", "batch_matmul", {8, 128, 128, 128}},
      {"depthwise_conv2d 128x56x56", "depthwise_conv2d", {1, 128, 56, 56, 3, 3, 1, 1}},
      // The template computes through NCHW16c (pad and block the input, block the filter, unblock
      // the output, all per call): conv2d_nchwc.te is that computation, and its generated space
      // is the channel-blocked comparison. The template's reference computation is plain NCHW;
      // the space generated from it keeps NCHW (a generated space does not change layouts) and
      // is shown for information (ratio_nchw_math).
      {"conv2d_nchwc 64x56x56 f64 3x3",
       "conv2d_nchwc",
       {1, 64, 56, 56, 64, 3, 3, 1, 1},
       {Variant{"", "conv2d_nchwc", {{"N", 1}, {"C", 64}, {"H", 56}, {"W", 56}, {"F", 64}}},
        Variant{"  same, NCHW math", "", {}, false}}},
  };
  std::vector<double> vs_template, vs_onednn;
  double nchw_math = 0;
  int tuned_ops = 0;
  std::printf("%-28s %7s %12s %12s %7s %6s  %s\n", "template operator", "trials", "template GF/s",
              "generated", "ratio", "peak", "generated best config");
  for (const TemplateCase& c : templates) {
    if (!selected(c.label)) continue;
    auto hand = TuneAndLoad(c.tmpl, c.args, o);
    if (!hand.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.label.c_str(), hand.status().ToString().c_str());
      return 1;
    }
    for (const Variant& v : c.variants) {
      absl::StatusOr<TunedKernel> gen;
      if (v.program.empty()) {
        gen = TuneAndLoad("generated:" + c.tmpl, c.args, o);
      } else {
        absl::StatusOr<tuner::TuneTask> task = tuner::MakeProgramTask(
            v.program, ReadExampleProgram(v.program), v.shapes, "llvm", kBenchDeviceKey);
        gen = task.ok() ? TuneTaskAndLoad(*task, o) : absl::StatusOr<TunedKernel>(task.status());
      }
      if (!gen.ok()) {
        std::fprintf(stderr, "%s: %s\n", c.label.c_str(), gen.status().ToString().c_str());
        return 1;
      }
      omp_set_num_threads(1);
      const SidePair t = TimeSideBySide(KernelCall(*hand), KernelCall(*gen), repeats, rounds,
                                        SideBySideSeconds(quick));
      const double t_hand = t.a_s, t_gen = t.b_s, hand_over_gen = 1 / t.b_over_a;
      const double flop = hand->task.workload.flop;
      const std::string label = v.label.empty() ? c.label : v.label;
      std::printf("%-28s %7d %12.1f %12.1f %7.2f %6.2f  %s\n", label.c_str(), gen->result.trials,
                  flop / t_hand * 1e-9, flop / t_gen * 1e-9, hand_over_gen,
                  PeakFraction(*gen, t_gen, fma_peak), gen->result.best_config.c_str());
      std::fflush(stdout);
      if (v.in_min) {
        vs_template.push_back(hand_over_gen);
      } else {
        nchw_math = hand_over_gen;
      }
    }
    ++tuned_ops;
  }

  // Part 2: programs with no template.
  struct ProgramCase {
    std::string label, file;
    absl::flat_hash_map<std::string, int64_t> shapes;
    std::function<OneDnnPtr()> onednn;  // Null: no oneDNN counterpart.
  };
  const std::vector<ProgramCase> programs = {
      {"layer_norm 128x768",
       "layer_norm",
       {{"N", 128}, {"D", 768}},
       [] { return OneDnnLayerNorm(128, 768); }},
      {"max_pool 3x3/2 64x112x112",
       "max_pool_nchwc",
       {{"N", 1}, {"C", 4}, {"H", 112}, {"W", 112}},
       [] { return OneDnnPool(dnnl::algorithm::pooling_max, 64, 112, 3, 2); }},
      {"global_avg_pool 512x7x7",
       "global_avg_pool_nchwc",
       {{"N", 1}, {"C", 32}, {"H", 7}, {"W", 7}},
       [] { return OneDnnPool(dnnl::algorithm::pooling_avg_exclude_padding, 512, 7, 7, 1); }},
      {"dense+bias+gelu 128x768x768",
       "dense_bias_gelu",
       {{"M", 128}, {"N", 768}, {"K", 768}},
       [] { return OneDnnDenseBiasGelu(128, 768, 768); }},
      {"attention 12x128x64",
       "attention_softmax",
       {{"Hd", 12}, {"L", 128}, {"D", 64}},
       [] { return OneDnnAttention(12, 128, 64); }},
      {"conv2d+bias+relu 64x56x56 f64",
       "conv2d_bias_relu_nchwc",
       {{"N", 1}, {"C", 4}, {"H", 56}, {"W", 56}, {"F", 4}},
       [] { return OneDnnConvBiasRelu(64, 56, 64); }},
      {"stencil5 1024x1024", "stencil5", {{"H", 1024}, {"W", 1024}}, nullptr},
  };
  std::printf("\n%-28s %7s %12s %12s %7s %6s  %s\n", "program (no template)", "trials", "generated",
              "oneDNN GF/s", "ratio", "peak", "best config");
  for (const ProgramCase& c : programs) {
    if (!selected(c.label)) continue;
    const std::string text = ReadExampleProgram(c.file);
    if (text.empty()) {
      std::fprintf(stderr, "cannot read examples/programs/%s.te\n", c.file.c_str());
      return 1;
    }
    auto task = tuner::MakeProgramTask(c.file, text, c.shapes, "llvm", kBenchDeviceKey);
    if (!task.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.label.c_str(), task.status().ToString().c_str());
      return 1;
    }
    auto gen = TuneTaskAndLoad(*task, o);
    if (!gen.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.label.c_str(), gen.status().ToString().c_str());
      return 1;
    }
    omp_set_num_threads(1);
    double t_gen = 0;
    const double flop = gen->task.workload.flop;
    std::string baseline = "-", ratio = "-";
    if (!c.onednn) {
      t_gen = TimeKernel(*gen, repeats);
    } else {
      SidePair t;
      try {
        OneDnnPtr dnnl = c.onednn();
        t = TimeSideBySide(
            KernelCall(*gen), [&] { dnnl->Run(); }, repeats, rounds, SideBySideSeconds(quick));
      } catch (const dnnl::error& e) {
        std::fprintf(stderr, "%s: oneDNN: %s\n", c.label.c_str(), e.what());
        return 1;
      }
      t_gen = t.a_s;
      baseline = absl::StrFormat("%.1f", flop / t.b_s * 1e-9);
      ratio = absl::StrFormat("%.2f", t.b_over_a);
      vs_onednn.push_back(t.b_over_a);
    }
    std::printf("%-28s %7d %12.1f %12s %7s %6.2f  %s\n", c.label.c_str(), gen->result.trials,
                flop / t_gen * 1e-9, baseline.c_str(), ratio.c_str(),
                PeakFraction(*gen, t_gen, fma_peak), gen->result.best_config.c_str());
    std::fflush(stdout);
    ++tuned_ops;
  }
  auto min_of = [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end());
  };
  PrintResult({{"ratio_vs_template_min", Fixed(min_of(vs_template))},
               {"ratio_nchw_math", Fixed(nchw_math)},
               {"ratio_vs_onednn_min", Fixed(min_of(vs_onednn))},
               {"ops_tuned", std::to_string(tuned_ops)},
               {"fma_peak_gflops", Fixed(fma_peak, 1)},
               {"read_gbs", Fixed(read_gbs, 1)}});
  return 0;
}

}  // namespace tunefarm::bench

ABSL_FLAG(bool, quick, false, "A short run (12 trials, fewer timed rounds) through every path.");
ABSL_FLAG(std::string, only, "",
          "Run only the lines whose label contains this (e.g. attention); default all.");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return tunefarm::bench::Run(absl::GetFlag(FLAGS_quick), absl::GetFlag(FLAGS_only));
}
