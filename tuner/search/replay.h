// Replays a search strategy against a recorded table of costs instead of devices, for
// sample-efficiency benchmarks: how many trials a strategy needs to find a config within some
// margin of the best known one.
//
//   ReplayResult r = *Replay(*strategy, [&](int64_t i) { return table.Lookup(i); }, 500, 32);
//   int trials = TrialsToReach(r.best_so_far, best_known / 0.9);   // within 90% of optimal
#ifndef TUNEFARM_TUNER_SEARCH_REPLAY_H_
#define TUNEFARM_TUNER_SEARCH_REPLAY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/search/search_strategy.h"

namespace tunefarm::tuner {

// The recorded cost in seconds of a config; nullopt when the table has no record (the trial
// counts as a failed measurement, cost +inf).
using CostLookup = std::function<std::optional<double>(int64_t index)>;

struct ReplayResult {
  // Proposed configs in trial order and their costs (+inf = failed or unknown).
  std::vector<int64_t> indices;
  std::vector<double> costs;
  // best_so_far[t] = min(costs[0..t]); +inf until the first success.
  std::vector<double> best_so_far;
};

// Runs up to `trials` trials in batches of `batch_size`: NextBatch, look up each cost, Update.
// Stops early when the strategy returns an empty batch (space exhausted).
// InvalidArgument: trials < 0 or batch_size < 1. Any error of the strategy is returned as is.
absl::StatusOr<ReplayResult> Replay(SearchStrategy& strategy, const CostLookup& lookup, int trials,
                                    int batch_size);

// The number of trials (1-based) after which best_so_far is <= target_cost, or -1 if never.
int TrialsToReach(const std::vector<double>& best_so_far, double target_cost);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_REPLAY_H_
