#include "tuner/search/search_strategy.h"

#include "absl/strings/str_cat.h"

namespace tunefarm::tuner {

absl::Status CheckMeasuredPoints(const ConfigSpace& space,
                                 const std::vector<MeasuredPoint>& results) {
  for (const MeasuredPoint& p : results) {
    if (p.index < 0 || p.index >= space.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "measured config index ", p.index, " is outside the space [0, ", space.size(), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::tuner
