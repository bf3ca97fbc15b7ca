// Splitting a reduction along its contiguous axis, in the manner of TVM's rfactor but as a
// rewrite of the program (the generated space's `<stage>.rfactor` knob). A reduction whose
// last data-parallel axis indexes an outer dimension of what it reads, while its innermost
// reduce axis indexes the innermost one, would gather across rows if vectorized over the
// former (layer normalization's row sums, a softmax's row max, a batch-1 GEMV):
//
//   S[i] = sum(j: X[i, j])
//
// becomes a partial reduction whose last axis is a vector of lanes reading X contiguously,
// and the sum of those lanes (the horizontal add):
//
//   S_rf[i, ji] = sum(jo: X[i, jo * 16 + ji])
//   S[i] = sum(ji: S_rf[i, ji])
#ifndef TUNEFARM_TUNER_GENERATED_SPLIT_REDUCTION_H_
#define TUNEFARM_TUNER_GENERATED_SPLIT_REDUCTION_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/te/tensor.h"

namespace tunefarm::tuner {

// The lanes `reduction` would be split into: when some tensor it reads has the innermost
// reduce axis in its last index and the last data-parallel axis only in outer ones, the
// largest of 16, 8 and 4 that divides the reduce axis's extent; otherwise 0.
int64_t SplitReductionLanes(const te::Tensor& reduction);

// The program `args` (inputs, then the output) with `reduction` split as above into
// "<name>_rf" and a reduction with the original name over its lanes; every stage that reads
// it is rebuilt to read the new one. InvalidArgument: not a reduction, or `lanes` < 2 or not
// a divisor of the innermost reduce axis's extent.
absl::StatusOr<std::vector<te::Tensor>> SplitReduction(const std::vector<te::Tensor>& args,
                                                       const te::Tensor& reduction, int64_t lanes);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_SPLIT_REDUCTION_H_
