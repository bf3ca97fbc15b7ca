#include "tuner/search/replay.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/status/status.h"

namespace tunefarm::tuner {

absl::StatusOr<ReplayResult> Replay(SearchStrategy& strategy, const CostLookup& lookup, int trials,
                                    int batch_size) {
  if (trials < 0 || batch_size < 1) {
    return absl::InvalidArgumentError("Replay: need trials >= 0 and batch_size >= 1");
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  ReplayResult r;
  double best = kInf;
  while (static_cast<int>(r.indices.size()) < trials) {
    int n = std::min(batch_size, trials - static_cast<int>(r.indices.size()));
    absl::StatusOr<std::vector<int64_t>> batch = strategy.NextBatch(n);
    if (!batch.ok()) return batch.status();
    if (batch->empty()) break;
    std::vector<MeasuredPoint> measured;
    for (int64_t i : *batch) {
      std::optional<double> c = lookup(i);
      double cost = c.has_value() && *c > 0.0 && std::isfinite(*c) ? *c : kInf;
      best = std::min(best, cost);
      r.indices.push_back(i);
      r.costs.push_back(cost);
      r.best_so_far.push_back(best);
      measured.push_back({i, cost});
    }
    if (absl::Status s = strategy.Update(measured); !s.ok()) return s;
  }
  return r;
}

int TrialsToReach(const std::vector<double>& best_so_far, double target_cost) {
  for (size_t t = 0; t < best_so_far.size(); ++t) {
    if (best_so_far[t] <= target_cost) return static_cast<int>(t) + 1;
  }
  return -1;
}

}  // namespace tunefarm::tuner
