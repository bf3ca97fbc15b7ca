// The names of a generated space's knobs: "<stage>.<what>", so two stages of a program (and
// the CPU and GPU rules) name their knobs alike.
#ifndef TUNEFARM_TUNER_GENERATED_KNOB_NAMES_H_
#define TUNEFARM_TUNER_GENERATED_KNOB_NAMES_H_

#include <string>

#include "absl/strings/string_view.h"
#include "compiler/te/tensor.h"

namespace tunefarm::tuner {

// "<writer>.<what>".
std::string KnobName(const te::Tensor& writer, absl::string_view what);

// The tile knob of reduction axis `r` of `writer`'s reduction: "<writer>.tile_<name>", or
// "<writer>.tile_r_<name>" when a spatial axis of the writer has that name (te's default names
// can repeat: i, j, k spatial and k reduced).
std::string ReduceKnobName(const te::Tensor& writer, const te::IterVar& r);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_KNOB_NAMES_H_
