// AutoTVM's diversity filter: picks a subset of candidate configs that are predicted fast and
// together cover many different knob choices, so one batch does not spend every measurement on
// near-copies of the same config.
#ifndef TUNEFARM_TUNER_SEARCH_DIVERSITY_FILTER_H_
#define TUNEFARM_TUNER_SEARCH_DIVERSITY_FILTER_H_

#include <cstdint>
#include <vector>

namespace tunefarm::tuner {

// Greedy submodular selection of up to `n_pick` candidates. Candidate i has model score
// `scores[i]` (higher = faster) and knob choices `choices[i]` (one per knob). Each step takes the
// candidate maximizing  normalized_score + knob_weight * (knob choices it adds that no picked
// candidate has yet) / num_knobs,  where scores are min-max normalized to [0, 1]. Ties go to the
// lower candidate position. Returns positions into `scores` in pick order.
std::vector<int> DiversityPick(const std::vector<float>& scores,
                               const std::vector<std::vector<int64_t>>& choices, int n_pick,
                               double knob_weight);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_DIVERSITY_FILTER_H_
