// A CPU benchmark's case (an operation and its shape) and what a user tunes for it: the spaces
// of each algorithm (the programs of examples/programs/, or a template where a program refuses
// the shape), tuned on the embedded local farm, the fastest tuned algorithm picked by timing
// them side by side in this process; and the libraries' kernels that compute the same.
// Shared by bench:cpu_kernels and bench:tune_conv2d.
#ifndef TUNEFARM_BENCH_BENCH_CASES_H_
#define TUNEFARM_BENCH_BENCH_CASES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/library_baselines.h"
#include "bench/tune_common.h"
#include "tuner/tuning/task.h"

namespace tunefarm::bench {

enum class Op { kDense, kBatchMatmul, kConv, kDepthwise };

struct Case {
  std::string label;
  Op op;
  int threads = 1;
  bool int8 = false;
  // Dense: {M, N, K}; batch_matmul: {B, M, N, K}; conv and depthwise: {N, C, H, W, F, R, S,
  // stride, pad} (depthwise: F = C).
  std::vector<int64_t> dims;
};

// The fastest algorithm of a case, tuned, and the space it was tuned in (a program's file name
// or a template's name).
struct TunedAlgorithm {
  TunedKernel kernel;
  std::string space;
};

// Tunes each algorithm a user tunes for `c` (the direct one; for a fp32 3×3 stride-1
// convolution over whole 16-channel blocks also the F(4×4) and F(2×2) Winograd programs), with
// `options` (its thread count is the case's), then times the tuned kernels here in turn
// (TimeInTurn: `repeats` calls a round, at least `rounds` rounds spanning at least
// `min_seconds`; this shared machine's rate moves over seconds and minutes, so they are compared
// under the same conditions, not each once after its own tuning) and returns the fastest: the
// one whose time over the first's in the same round has the lowest median. stderr gets each
// algorithm's time here beside the farm's score of it, in the direct algorithm's count, and why an
// algorithm was not tuned. The error of the last algorithm when none was tuned.
absl::StatusOr<TunedAlgorithm> TuneFastestAlgorithm(const Case& c, TuneBenchOptions options,
                                                    int repeats, int rounds, double min_seconds);

// Operations of the case by the direct algorithm, so that a Winograd kernel's GFLOP/s, ours
// or oneDNN's, is effective (the direct count over its time), comparable across algorithms.
double DirectFlop(const Case& c, const tuner::TuneTask& task);

// Every library kernel that computes the case (library_baselines.h), on the case's threads.
std::vector<Baseline> BaselinesFor(const Case& c);

// The first trial (1-based) at which `curve` (the best so far per trial) reached `target`;
// the curve's length if never.
int TrialsToReach(const std::vector<double>& curve, double target);

// trials_to_90: TrialsToReach 90% of the job's final best, the lower of `final_gflops` (its
// winner's score, the median of its re-measurements) and the best single trial (the curve's
// last point). Each alone reads late by the machine's drift: a trial fast by luck raises the
// best trial, and re-measurements taken while the machine runs fast put the winner's score
// above every trial of the curve, a target no trial was measured against. The lower is the
// final best in both kinds of measurement. `final_gflops` 0: the best single trial.
int TrialsTo90(const std::vector<double>& curve, double final_gflops);

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_BENCH_CASES_H_
