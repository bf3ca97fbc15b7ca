// A dense layer's weight in pairs of consecutive inputs (examples/programs/dense_pairs.te):
// which layers get that program, and the reorder from the plain [N][K] weight. The model import
// tunes it beside the direct program (group_program.h's AlternativePrograms), and
// bench:cpu_kernels beside dense_layer.te, by the same rule.
#ifndef TUNEFARM_GRAPH_DENSE_PAIRS_H_
#define TUNEFARM_GRAPH_DENSE_PAIRS_H_

#include <cstdint>
#include <vector>

namespace tunefarm::graph {

// Whether a dense layer of n outputs and k inputs also gets the pairs program (k even, n a
// multiple of 8): n 8 or 16, where the direct program's one vector of outputs broadcasts an input
// for every multiply-add and those loads bound it; and n 24, 40 or 56, whose last 8 outputs the
// direct program computes in a vector of 16 lanes, half of them wasted, where the pairs program's
// blocks of 8 outputs × 2 inputs fill every lane. On a Zen 5 (`tunefarm tune --trials 200` of
// each program, the log's best, pairs against direct, GFLOP/s): 3136 × 24 × 96 (MobileNetV2's
// 1×1 96→24 at 56×56 as a GEMM) 244.0 against 194.7, 784 × 40 × 144 255.7 against 215.5,
// 784 × 56 × 144 245.5 against 194.2; at 32 and 48 outputs 241.2 against 237.7 and 254.3
// against 246.6, not worth a second task.
bool DensePairsFit(int64_t n, int64_t k);

// wt [n][k] (row-major) as the pairs program's weight [k / 2][n / 8][8][2]: element
// (k', b, l, t) is wt[8b + l][2k' + t]. Requires DensePairsFit(n, k).
std::vector<float> DensePairsWeight(const std::vector<float>& wt, int64_t n, int64_t k);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_DENSE_PAIRS_H_
