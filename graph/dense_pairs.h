// A dense layer's weight in pairs of consecutive inputs (examples/programs/dense_pairs.te):
// which layers get that program, and the reorder from the plain [N][K] weight. The model import
// tunes it beside the direct program (group_program.h's AlternativePrograms), and
// bench:cpu_kernels beside dense_layer.te, by the same rule.
#ifndef TUNEFARM_GRAPH_DENSE_PAIRS_H_
#define TUNEFARM_GRAPH_DENSE_PAIRS_H_

#include <cstdint>
#include <vector>

namespace tunefarm::graph {

// Whether a dense layer of n outputs and k inputs also gets the pairs program: n 8 or 16, where
// the direct program's one vector of outputs broadcasts an input for every multiply-add and those
// loads bound it (from 32 outputs on, each broadcast serves two or more), and k even.
bool DensePairsFit(int64_t n, int64_t k);

// wt [n][k] (row-major) as the pairs program's weight [k / 2][n / 8][8][2]: element
// (k', b, l, t) is wt[8b + l][2k' + t]. Requires DensePairsFit(n, k).
std::vector<float> DensePairsWeight(const std::vector<float>& wt, int64_t n, int64_t k);

}  // namespace tunefarm::graph

#endif  // TUNEFARM_GRAPH_DENSE_PAIRS_H_
