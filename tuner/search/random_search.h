// Uniform random search without replacement; works on spaces of any size (see
// IndexPermutation) and is the baseline every other strategy is compared with. In a space with
// constraints it draws the admitted configs first (admitted_order.h).
#ifndef TUNEFARM_TUNER_SEARCH_RANDOM_SEARCH_H_
#define TUNEFARM_TUNER_SEARCH_RANDOM_SEARCH_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "tuner/search/search_strategy.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

// `space` must outlive the strategy. The same seed gives the same proposals.
// InvalidArgument: space is null.
absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeRandomSearch(const ConfigSpace* space,
                                                                 uint64_t seed);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_RANDOM_SEARCH_H_
