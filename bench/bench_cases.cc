#include "bench/bench_cases.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "bench/bench_util.h"
#include "compiler/codegen/target.h"
#include "graph/dense_pairs.h"

extern "C" void omp_set_num_threads(int);

namespace tunefarm::bench {
namespace {

// The spaces a user gets for the case, in order of preference: the first one whose template or
// program accepts the shape is tuned.
struct Space {
  std::string tmpl;     // A template name, or
  std::string program;  // an examples/programs/ file (without .te) with its shape bindings.
  absl::flat_hash_map<std::string, int64_t> shapes;
};

// A channel block: `block` when it divides `channels`; else all of them up to 4 blocks (an
// output of 24 channels as one block: a zmm and a ymm per pixel; blocks of 8 used half of each
// FMA, 112 against 146 GFLOP/s, best of 60 random configs of the 1×1 96→24 layer, kernel_probe);
// else 8 when that divides them.
int64_t ChannelBlock(int64_t channels, int64_t block) {
  if (channels % block == 0) return block;
  if (channels <= 4 * block || channels % 8 != 0) return channels;
  return 8;
}

// The shape bindings of the channels-last programs (conv2d_nhwc.te, conv2d_u8s8_nhwc.te) for a
// convolution case's dims {N, C, H, W, F, R, S, stride, padding}.
absl::flat_hash_map<std::string, int64_t> NhwcShapes(const std::vector<int64_t>& d) {
  return {{"N", d[0]}, {"C", d[1]}, {"H", d[2]},  {"W", d[3]}, {"F", d[4]},
          {"R", d[5]}, {"S", d[6]}, {"St", d[7]}, {"Pd", d[8]}};
}

// The shape bindings of the dense programs for a dense case's dims {M, N, K}.
absl::flat_hash_map<std::string, int64_t> DenseShapes(const std::vector<int64_t>& d) {
  return {{"M", d[0]}, {"N", d[1]}, {"K", d[2]}};
}

// Whether a convolution case's dims are a 3×3 stride-1 layer of whole 16-channel blocks, with
// padding 1: what the programs in 16-channel blocks for that kernel (conv2d_u8s8_vnni.te,
// conv2d_u8s8_avx2.te, the Winograd ones) compute.
bool Blocked3x3(const std::vector<int64_t>& d) {
  return d[1] % 16 == 0 && d[4] % 16 == 0 && d[5] == 3 && d[6] == 3 && d[7] == 1 && d[8] == 1;
}

// Their shape bindings, channels counted in blocks of 16.
absl::flat_hash_map<std::string, int64_t> Blocked3x3Shapes(const std::vector<int64_t>& d) {
  return {{"N", d[0]}, {"C", d[1] / 16}, {"H", d[2]}, {"W", d[3]}, {"F", d[4] / 16}};
}

bool HostHasAmx() { return codegen::TargetHasFeature(codegen::HostTarget(), "amx-int8"); }

bool HostHasAvx2WithoutVnni() {
  const codegen::Target host = codegen::HostTarget();
  return codegen::TargetHasFeature(host, "avx2") && !codegen::TargetHasFeature(host, "avx512vnni");
}

// The programs of examples/programs/ that compute the case, written the way a user of the
// language writes a layer: weights as weight(...) (so the space may pack them ahead of time) and
// convolutions in channel-blocked layouts, as oneDNN gets its preferred layouts. The templates
// follow, for shapes a program refuses.
std::vector<Space> SpacesFor(const Case& c) {
  const std::vector<int64_t>& d = c.dims;
  switch (c.op) {
    case Op::kDense:
      if (c.int8) {
        // The weight in the VNNI layout (its generated space on AMX tiles where the CPU has
        // them, tuner/generated/amx_tiling.h), plain bytes where the shape does not allow it.
        return {{"", "dense_u8s8_vnni", DenseShapes(d)}, {"", "dense_u8s8", DenseShapes(d)}};
      }
      return {{"", "dense_layer", DenseShapes(d)}, {"dense", "", {}}};
    case Op::kBatchMatmul:
      return {{"", "batch_matmul", {{"B", d[0]}, {"M", d[1]}, {"N", d[2]}, {"K", d[3]}}},
              {"batch_matmul", "", {}}};
    case Op::kConv: {
      if (c.int8) {
        // Where the CPU has AMX-INT8: NHWC and the filter in the VNNI layout per tap, which
        // the generated space computes on tiles; else NCHW16c and the filter in the VNNI
        // layout for the 3×3 layers it is written for (vpdpbusd).
        std::vector<Space> spaces;
        // The channel counts the tiles read (64 input channels a step, 16 output channels a
        // tile); other shapes take the VNNI programs below.
        if (HostHasAmx() && d[1] % 64 == 0 && d[4] % 16 == 0) {
          spaces.push_back({"", "conv2d_u8s8_nhwc", NhwcShapes(d)});
        }
        if (Blocked3x3(d)) {
          spaces.push_back({"", "conv2d_u8s8_vnni", Blocked3x3Shapes(d)});
        }
        spaces.push_back(
            {"", "conv2d_u8s8", {{"N", d[0]}, {"C", d[1]}, {"H", d[2]}, {"W", d[3]}, {"F", d[4]}}});
        return spaces;
      }
      const int64_t cb = ChannelBlock(d[1], 16), fb = ChannelBlock(d[4], 16);
      return {{"",
               "conv2d_blocked",
               {{"N", d[0]},
                {"C", d[1] / cb},
                {"CB", cb},
                {"H", d[2]},
                {"W", d[3]},
                {"F", d[4] / fb},
                {"FB", fb},
                {"R", d[5]},
                {"S", d[6]},
                {"St", d[7]},
                {"Pd", d[8]}}},
              {"conv2d_nchwc_packed", "", {}},
              {"conv2d", "", {}}};
    }
    case Op::kDepthwise:
      return {{"",
               "depthwise_blocked",
               {{"N", d[0]},
                {"C", d[1] / 16},
                {"H", d[2]},
                {"W", d[3]},
                {"R", d[5]},
                {"S", d[6]},
                {"St", d[7]},
                {"Pd", d[8]}}},
              {"depthwise_conv2d", "", {}}};
  }
  return {};
}

// The algorithms a user tunes for the case, each a list of spaces in order of preference (the
// first that accepts the shape is tuned); the fastest tuned algorithm is ours, as TVM tunes its
// direct and Winograd strategies of a 3×3 convolution and keeps the faster. fp32 3×3 stride-1
// convolutions over whole channel blocks also get conv2d_winograd.te (F(4×4, 3×3)) and
// conv2d_winograd_f2.te (F(2×2, 3×3): a smaller transformed filter); oneDNN's Winograd kernel is
// among the baselines.
std::vector<std::vector<Space>> AlgorithmsFor(const Case& c) {
  std::vector<std::vector<Space>> algorithms = {SpacesFor(c)};
  const std::vector<int64_t>& d = c.dims;
  if (c.op == Op::kConv && !c.int8 && Blocked3x3(d)) {
    for (const char* program : {"conv2d_winograd", "conv2d_winograd_f2"}) {
      algorithms.push_back({{"", program, Blocked3x3Shapes(d)}});
    }
  }
  // int8 dense layers and 3×3 convolutions on a core with AVX2 and no VNNI also get
  // dense_u8s8_avx2.te and conv2d_u8s8_avx2.te: the same weight, widened to int16 once ahead of
  // the calls, so the kernel's vpmaddwd read it without the shifts that widen its bytes in
  // every call (and the dense layer's A widened once per call, ahead of its loops).
  if (c.int8 && HostHasAvx2WithoutVnni()) {
    if (c.op == Op::kDense) {
      algorithms.push_back({{"", "dense_u8s8_avx2", DenseShapes(d)}});
    }
    if (c.op == Op::kConv && Blocked3x3(d)) {
      algorithms.push_back({{"", "conv2d_u8s8_avx2", Blocked3x3Shapes(d)}});
    }
  }
  // fp32 dense layers of 8 or 16 outputs also get dense_pairs.te, the weight in pairs of
  // inputs: dense_layer.te's kernel there broadcasts one input for every multiply-add of its
  // one vector of outputs, and those loads bound it (0.85-0.89 of the FMA peak on a Zen 5 at
  // 512×16×512; the pairs program's 0.95-0.98 there, docs/cpu_kernels.md runs 33-34). The
  // model import offers it to the same layers (graph/dense_pairs.h).
  if (c.op == Op::kDense && !c.int8 && graph::DensePairsFit(d[1], d[2])) {
    algorithms.push_back({{"", "dense_pairs", DenseShapes(d)}});
  }
  // fp32 1×1 convolutions also get conv2d_nhwc.te, channels last (oneDNN's brgemm convolutions
  // run on NHWC): a strided 1×1 layer reads each pixel's channels as one run there, where the
  // blocked layout reads 64 bytes of every other 128 and the prefetchers fetch the rest.
  if (c.op == Op::kConv && !c.int8 && d[5] == 1 && d[6] == 1) {
    algorithms.push_back({{"", "conv2d_nhwc", NhwcShapes(d)}});
  }
  // A fp32 1×1 stride-1 convolution channels last is a GEMM, (N·H·W pixels × C)·(C × F): where
  // its F fits the pairs rule (24 outputs: MobileNetV2's 96→24, whose last 8 channels the
  // direct programs compute in a half-empty vector), also dense_pairs.te over the pixels.
  if (c.op == Op::kConv && !c.int8 && d[5] == 1 && d[6] == 1 && d[7] == 1 && d[8] == 0 &&
      graph::DensePairsFit(d[4], d[1])) {
    algorithms.push_back(
        {{"", "dense_pairs", {{"M", d[0] * d[2] * d[3]}, {"N", d[4]}, {"K", d[1]}}}});
  }
  return algorithms;
}

// The template's arguments for the case.
std::vector<int64_t> TemplateArgs(const Case& c) {
  const std::vector<int64_t>& d = c.dims;
  if (c.op == Op::kDepthwise) return {d[0], d[1], d[2], d[3], d[5], d[6], d[7], d[8]};
  return d;
}

OneDnnConvShape ConvShape(const Case& c) {
  const std::vector<int64_t>& d = c.dims;
  OneDnnConvShape s;
  s.n = d[0], s.c = d[1], s.h = d[2], s.w = d[3], s.f = d[4], s.r = d[5], s.s = d[6];
  s.stride = d[7], s.pad = d[8];
  s.depthwise = c.op == Op::kDepthwise;
  return s;
}

// The task of the first of `spaces` that accepts the case, named in `space_name`.
absl::StatusOr<tuner::TuneTask> MakeCaseTask(const Case& c, const std::vector<Space>& spaces,
                                             std::string* space_name) {
  absl::Status last = absl::NotFoundError("no space for this operation");
  for (const Space& s : spaces) {
    absl::StatusOr<tuner::TuneTask> task;
    if (!s.tmpl.empty()) {
      task = tuner::MakeTask(s.tmpl, TemplateArgs(c), c.int8 ? "int8" : "float32", "llvm",
                             kBenchDeviceKey);
      *space_name = s.tmpl;
    } else {
      const std::string text = ReadExampleProgram(s.program);
      if (text.empty()) return absl::NotFoundError("cannot read examples/programs/" + s.program);
      task = tuner::MakeProgramTask(s.program, text, s.shapes, "llvm", kBenchDeviceKey);
      *space_name = s.program + ".te";
    }
    if (task.ok()) return task;
    std::fprintf(stderr, "%s: %s refused: %s\n", c.label.c_str(), space_name->c_str(),
                 task.status().ToString().c_str());
    last = task.status();
  }
  return last;
}

// The index of the fastest of `kernels` (-1: none), timed here in turn (TimeInTurn): the
// algorithms are compared under the same conditions, not each once, minutes apart, after its
// own tuning (this shared machine's rate moves over seconds and minutes); the fastest has the
// lowest median time over the first kernel's in the same round. `report(i, seconds)` is told
// each one's median.
int FastestSideBySide(std::vector<TunedKernel>& kernels, int repeats, int rounds,
                      double min_seconds, const std::function<void(size_t, double)>& report) {
  std::vector<std::function<void()>> calls;
  for (TunedKernel& k : kernels) calls.push_back(KernelCall(k));
  // A lone kernel has nothing to be compared with: one round gives its line on stderr.
  const InTurn t = kernels.size() > 1 ? TimeInTurn(calls, repeats, rounds, min_seconds)
                                      : TimeInTurn(calls, repeats, 1);
  int fastest = -1;
  for (size_t i = 0; i < t.seconds.size(); ++i) {
    report(i, t.seconds[i]);
    if (fastest < 0 || t.over_first[i] < t.over_first[fastest]) fastest = static_cast<int>(i);
  }
  return fastest;
}

}  // namespace

double DirectFlop(const Case& c, const tuner::TuneTask& task) {
  const std::vector<int64_t>& d = c.dims;
  // dense_pairs.te also counts the additions of its two partial sums.
  if (c.op == Op::kDense) return 2.0 * d[0] * d[1] * d[2];
  if (c.op != Op::kConv && c.op != Op::kDepthwise) return task.workload.flop;
  const int64_t ho = (d[2] + 2 * d[8] - d[5]) / d[7] + 1, wo = (d[3] + 2 * d[8] - d[6]) / d[7] + 1;
  const double per_output = 2.0 * d[5] * d[6] * (c.op == Op::kDepthwise ? 1 : d[1]);
  return per_output * d[0] * d[4] * ho * wo;
}

std::vector<Baseline> BaselinesFor(const Case& c) {
  const OneDnnTypes types = c.int8 ? OneDnnTypes::kU8S8S32 : OneDnnTypes::kF32;
  const std::vector<int64_t>& d = c.dims;
  switch (c.op) {
    case Op::kDense:
      return GemmBaselines(1, d[0], d[1], d[2], types, c.threads);
    case Op::kBatchMatmul:
      return GemmBaselines(d[0], d[1], d[2], d[3], types, c.threads);
    case Op::kConv:
    case Op::kDepthwise:
      return ConvBaselines(ConvShape(c), types);
  }
  return {};
}

int TrialsToReach(const std::vector<double>& curve, double target) {
  for (size_t i = 0; i < curve.size(); ++i) {
    if (curve[i] >= target) return static_cast<int>(i) + 1;
  }
  return static_cast<int>(curve.size());
}

int TrialsTo90(const std::vector<double>& curve, double final_gflops) {
  if (curve.empty()) return 0;
  const double best_trial = curve.back();
  return TrialsToReach(curve,
                       0.9 * (final_gflops > 0 ? std::min(final_gflops, best_trial) : best_trial));
}

absl::StatusOr<TunedAlgorithm> TuneFastestAlgorithm(const Case& c, TuneBenchOptions options,
                                                    int repeats, int rounds, double min_seconds) {
  options.threads = c.threads;
  std::vector<TunedKernel> tuned_kernels;
  std::vector<std::string> names;
  absl::Status failure = absl::NotFoundError("no space for this operation");
  for (const std::vector<Space>& spaces : AlgorithmsFor(c)) {
    std::string name;
    absl::StatusOr<tuner::TuneTask> task = MakeCaseTask(c, spaces, &name);
    absl::StatusOr<TunedKernel> tuned =
        task.ok() ? TuneTaskAndLoad(*task, options) : absl::StatusOr<TunedKernel>(task.status());
    if (!tuned.ok()) {
      std::fprintf(stderr, "%s: %s not tuned: %s\n", c.label.c_str(), name.c_str(),
                   tuned.status().ToString().c_str());
      failure = tuned.status();
      continue;
    }
    tuned_kernels.push_back(*std::move(tuned));
    names.push_back(name);
  }
  omp_set_num_threads(c.threads);
  const int pick =
      FastestSideBySide(tuned_kernels, repeats, rounds, min_seconds, [&](size_t i, double s) {
        // Beside the farm's score of the same kernel in the same count: a gap between the two is
        // the difference between the sandbox's timing and this process's.
        const TunedKernel& k = tuned_kernels[i];
        const double direct = DirectFlop(c, k.task);
        std::fprintf(stderr, "%s: %s %.1f GFLOP/s (direct count); the farm measured %.1f\n",
                     c.label.c_str(), names[i].c_str(), direct / s * 1e-9,
                     k.result.best_gflops * direct / k.task.workload.flop);
      });
  if (pick < 0) return failure;
  return TunedAlgorithm{std::move(tuned_kernels[pick]), names[pick]};
}

}  // namespace tunefarm::bench
