// Which axes of a reduction a padding's bounds fall on. A padding stage P[...] = select(h >= 1 &&
// h <= H && ..., X[...], 0) read by a convolution at P[.., y + ry, x + rx, ..] bounds the
// convolution's output rows and columns: those are the axes whose first and last tiles read
// the padding, where a generated schedule that inlines the padding (generated_space.h,
// `<stage>.at`) lets loop partitioning peel the border tiles off and drop the taps that add
// zero.
#ifndef TUNEFARM_TUNER_GENERATED_PADDING_AXES_H_
#define TUNEFARM_TUNER_GENERATED_PADDING_AXES_H_

#include <vector>

#include "compiler/te/tensor.h"

namespace tunefarm::tuner {

// The axes of `reader` (a computed stage), in increasing order, whose variables index one of
// `padding`'s dimensions that the conditions of its selects around a load depend on. Empty when
// `padding` has no such select, or `reader` does not read it.
std::vector<int> PaddedAxes(const te::Tensor& reader, const te::Tensor& padding);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_PADDING_AXES_H_
