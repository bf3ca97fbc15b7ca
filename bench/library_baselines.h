// The best library on this machine, run at its best, as the baseline of a CPU benchmark: every
// library that has the operation (OpenBLAS on this core's best kernels, oneDNN's primitives in
// their preferred layouts) is timed side by side with our kernel, and the fastest is the baseline.
#ifndef TUNEFARM_BENCH_LIBRARY_BASELINES_H_
#define TUNEFARM_BENCH_LIBRARY_BASELINES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/onednn_run.h"

namespace tunefarm::bench {

// One library's kernel for the operation, ready to call (its operands allocated and filled,
// constant weights already in its preferred layout).
struct Baseline {
  std::string library;  // "OpenBLAS" or "oneDNN".
  std::string impl;     // What it runs, e.g. "sgemm SkylakeX" or "brg:avx512_core".
  std::function<void()> run;
  // Whether it computes the operation (to floating-point rounding) on the terms ours does, so
  // that it can be the ratio's baseline. Not so, with the reason in `impl`: an int8 kernel whose
  // results differ from the exact ones (CheckInt8: oneDNN's Winograd convolution, and without
  // VNNI its direct ones and GEMMs), unless every kernel for the operation does (then they are
  // the baseline, labelled inexact); and a batched matmul's W laid out by oneDNN before the call
  // (W is an activation, produced for that call).
  bool comparable = true;
  // An int8 kernel whose results differ from the exact ones on full-range bytes (CheckInt8).
  bool inexact = false;
};

// C[m×n] = A[m×k]·Wᵀ, W [n×k] (a dense layer), per batch when batch > 1, on `threads` threads
// (OpenBLAS's thread count is set here, until another call sets it; oneDNN follows OpenMP's). fp32:
// cblas_sgemm (cblas_sgemv when m = 1), oneDNN matmul and (batch 1) inner product; u8 × s8 → s32:
// oneDNN only (OpenBLAS has no integer GEMM). batch > 1: W is an activation (MatmulWeight):
// oneDNN's matmul on W as written and with W reordered in the call, and, not comparable, on W
// laid out before the call.
std::vector<Baseline> GemmBaselines(int64_t batch, int64_t m, int64_t n, int64_t k,
                                    OneDnnTypes types, int threads);

// A convolution: oneDNN's direct algorithm and, where it has one, Winograd (OpenBLAS has no
// convolution; an im2col around sgemm would be a weaker baseline than oneDNN's). Every int8
// kernel, and every int8 GEMM of GemmBaselines, is checked against the exact result here; where
// its results differ it is marked inexact, with the mismatch in `impl`.
std::vector<Baseline> ConvBaselines(const OneDnnConvShape& shape, OneDnnTypes types);

// Our kernel and every baseline timed in turn in the same rounds (TimeInTurn: `repeats` calls
// of each a round, at least `rounds` rounds spanning at least `min_seconds`), so that every
// median comes from the same stretch of the machine's time. A baseline's ratio is the median
// over the rounds of its time over ours in the same round: a machine whose speed moves between
// rounds (a shared host) moves both sides of each ratio. The fastest baseline is the one with
// the lowest ratio.
struct SideBySide {
  double ours_s = 0;               // Our median.
  std::vector<double> baseline_s;  // Per baseline, in order: its median.
  std::vector<double> ratio;       // Per baseline: its time over ours (> 1: ours is faster).
  int fastest = -1;                // Index of the fastest comparable baseline (-1: none).
  int fastest_other = -1;          // Of the fastest other one, when it beats every comparable one.
  int rounds = 0;
  double wall_seconds = 0;  // The rounds' span.
  // The fastest comparable baseline's ratio in the machine's fast and slow rounds, split by a
  // short FMA loop after each round (SplitByState).
  ByState state;
  // The 95% interval of the fastest comparable baseline's ratio (MedianInterval over the
  // rounds' ratios): a row whose interval holds 1 is a tie within this run's noise, one whose
  // upper end is under 1 is slower than that library beyond it.
  Interval fastest_interval;
  double fastest_s() const { return fastest < 0 ? 0 : baseline_s[fastest]; }
  double fastest_ratio() const { return fastest < 0 ? 0 : ratio[fastest]; }
};
SideBySide TimeAgainst(const std::function<void()>& ours, const std::vector<Baseline>& baselines,
                       int repeats, int rounds, double min_seconds);

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_LIBRARY_BASELINES_H_
