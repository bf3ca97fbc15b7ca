// Row fusion, the generated space's `<output>.fuse_rows` knob: a program whose every stage
// reads its producers row for row along some leading axes (softmax, layer normalization, the
// attention scores with their softmax) can be computed one block of rows at a time, each
// stage over just that block, so the intermediate rows stay in the L1 cache instead of
// travelling through memory once per stage:
//
//   S[h, i, j] = sum(d: Q[h, i, d] * K[h, j, d])      every load of a stage indexes its
//   M[h, i]    = max(j: S[h, i, j])                   reader's axes h, i in the same place
//   Y[h, i, j] = exp(S[h, i, j] - M[h, i]) / ...      (depth 2): for each block of rows i of
//                                                     each h, S, M, ... then Y
//
// In Ansor's terms: every producer is computed at the output's outer loop (compute_at), a
// rule applied to the whole chain, where the per-stage sketch fuses only a reduction with its
// elementwise output.
#ifndef TUNEFARM_TUNER_GENERATED_ROW_FUSION_H_
#define TUNEFARM_TUNER_GENERATED_ROW_FUSION_H_

#include <vector>

#include "compiler/te/tensor.h"

namespace tunefarm::tuner {

// The number of leading axes along which the program `args` (inputs, then the output) can be
// computed one block at a time, or 0: the largest depth p, below the output's rank, such that
// every stage (but those in `outside`, computed on their own beforehand: packed copies of
// inputs) has at least p data-parallel axes and every load of a stage reads, in each of its
// first p indices, its reader's own axis of the same extent. 0 also when the output is a
// reduction or is the program's only stage.
int RowFusionDepth(const std::vector<te::Tensor>& args, const std::vector<te::Tensor>& outside);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_ROW_FUSION_H_
