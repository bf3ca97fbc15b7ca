#include "tuner/space/knob_stages.h"

#include <algorithm>

namespace tunefarm::tuner {

std::vector<KnobStage> KnobStages(const ConfigSpace& space) {
  std::vector<KnobStage> stages;
  for (int k = 0; k < space.num_knobs(); ++k) {
    const std::string& name = space.knob(k).name();
    const size_t dot = name.find('.');
    if (dot == std::string::npos || dot == 0) continue;
    const std::string stage = name.substr(0, dot);
    auto it = std::find_if(stages.begin(), stages.end(),
                           [&](const KnobStage& s) { return s.name == stage; });
    if (it == stages.end()) {
      stages.push_back({stage, {}});
      it = stages.end() - 1;
    }
    it->knobs.push_back(k);
  }
  return stages;
}

}  // namespace tunefarm::tuner
