// Guards that always hold: an elementwise stage `P[...] = select(cond, a, b)` whose condition
// is true at every point of its domain (a padding of 0: `h >= Pd && h < H + Pd` with Pd = 0,
// the shape bound at submission) becomes `P[...] = a`, a plain copy, which the sketch inlines
// into its reader (sketch.h) instead of copying the whole input before a 1×1 convolution.
#ifndef TUNEFARM_TUNER_GENERATED_DROP_GUARDS_H_
#define TUNEFARM_TUNER_GENERATED_DROP_GUARDS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/te/tensor.h"

namespace tunefarm::tuner {

// `args` (inputs, then the output) with each such stage rebuilt as its true branch (and its
// readers rebuilt to read it); unchanged when there is none. Errors: RebuildProgram's.
absl::StatusOr<std::vector<te::Tensor>> DropProvenGuards(const std::vector<te::Tensor>& args);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_DROP_GUARDS_H_
