// The stages of a generated space. Its knobs are named "<stage>.<what>" (generated/knob_names.h),
// so a program's stages, and the knobs that schedule each of them, can be read off the space; the
// model-based search recombines the fastest configs' stages (search/model_based_search.h,
// crossover_top).
#ifndef TUNEFARM_TUNER_SPACE_KNOB_STAGES_H_
#define TUNEFARM_TUNER_SPACE_KNOB_STAGES_H_

#include <string>
#include <vector>

#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

struct KnobStage {
  std::string name;        // The part of the knob names before the first dot.
  std::vector<int> knobs;  // Indices of its knobs, in knob order.
};

// Stages in the order their first knobs appear. A knob whose name has no dot (a template's
// knob, or a generated space's global one such as "parallel") belongs to no stage.
std::vector<KnobStage> KnobStages(const ConfigSpace& space);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SPACE_KNOB_STAGES_H_
