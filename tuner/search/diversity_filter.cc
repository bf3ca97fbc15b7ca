#include "tuner/search/diversity_filter.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"

namespace tunefarm::tuner {

std::vector<int> DiversityPick(const std::vector<float>& scores,
                               const std::vector<std::vector<int64_t>>& choices, int n_pick,
                               double knob_weight) {
  const int n = static_cast<int>(scores.size());
  std::vector<int> picked;
  if (n == 0 || n_pick <= 0) return picked;
  float lo = *std::min_element(scores.begin(), scores.end());
  float hi = *std::max_element(scores.begin(), scores.end());
  float span = hi > lo ? hi - lo : 1.0f;
  absl::flat_hash_set<std::pair<int, int64_t>> covered;  // (knob, choice) already picked.
  std::vector<bool> taken(n, false);
  while (static_cast<int>(picked.size()) < std::min(n, n_pick)) {
    int best = -1;
    double best_gain = 0.0;
    for (int i = 0; i < n; ++i) {
      if (taken[i]) continue;
      int fresh = 0;
      for (size_t k = 0; k < choices[i].size(); ++k) {
        if (!covered.contains({static_cast<int>(k), choices[i][k]})) ++fresh;
      }
      double gain = (scores[i] - lo) / span;
      if (!choices[i].empty()) gain += knob_weight * fresh / choices[i].size();
      if (best < 0 || gain > best_gain) {
        best = i;
        best_gain = gain;
      }
    }
    taken[best] = true;
    picked.push_back(best);
    for (size_t k = 0; k < choices[best].size(); ++k) {
      covered.insert({static_cast<int>(k), choices[best][k]});
    }
  }
  return picked;
}

}  // namespace tunefarm::tuner
