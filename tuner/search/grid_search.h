// Grid search: proposes indices 0, 1, 2, ... in order, skipping measured ones; in a space with
// constraints, the admitted configs first, then the rest (admitted_order.h).
#ifndef TUNEFARM_TUNER_SEARCH_GRID_SEARCH_H_
#define TUNEFARM_TUNER_SEARCH_GRID_SEARCH_H_

#include <memory>

#include "absl/status/statusor.h"
#include "tuner/search/search_strategy.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

// `space` must outlive the strategy. InvalidArgument: space is null.
absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeGridSearch(const ConfigSpace* space);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_GRID_SEARCH_H_
