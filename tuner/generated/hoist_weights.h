// Stages computed from a weight alone, computed once ahead of the calls instead of in every
// call, as a deployment folds a layer's constant parameters (TVM's FoldConstant on weights): a
// Winograd convolution's filter transform U = G·g·Gᵀ, a weight's layout change written in the
// program. The kernel takes the stage's value as an argument in the weight's place, and a pack
// program of its own computes it from the weight (template.h's Prepack; the worker runs it once,
// untimed, and `tunefarm export` ships it beside the kernel), exactly as for a weight packed
// ahead of time by the `pack_<input>` knob.
//
// A stage is hoisted when it reads only one weight (directly or through other such stages and
// constant tables) and a stage of the kernel reads it; the weight must be read by nothing left
// in the kernel, and no other hoisted stage may come from the same weight (the kernel argument
// it replaces is one). Others stay in the kernel.
#ifndef TUNEFARM_TUNER_GENERATED_HOIST_WEIGHTS_H_
#define TUNEFARM_TUNER_GENERATED_HOIST_WEIGHTS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "compiler/te/tensor.h"
#include "tuner/generated/pack_input.h"

namespace tunefarm::tuner {

struct HoistedProgram {
  // The kernel's program: inputs (each hoisted stage, a new input of its name, in its weight's
  // place), then the output.
  std::vector<te::Tensor> program;
  // One per hoisted stage: pack = {the weight, the stage}, arg_index its place among the inputs.
  std::vector<AheadPack> packs;
};

// `args` (inputs, then the output) with the stages computed from one of `weights` hoisted (see
// the file comment); the program unchanged when there are none. Errors: RebuildProgram's.
absl::StatusOr<HoistedProgram> HoistWeightStages(const std::vector<te::Tensor>& args,
                                                 const std::vector<te::Tensor>& weights);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_HOIST_WEIGHTS_H_
