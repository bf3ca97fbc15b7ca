// Search strategies over a config space: they propose which configs to measure next and learn
// from the measured costs. Every strategy never proposes an index twice, nor one that was
// measured before (including history preloaded through Update on resume).
//
//   std::unique_ptr<SearchStrategy> s = *MakeRandomSearch(&space, /*seed=*/1);
//   while (trials < budget) {
//     std::vector<int64_t> batch = *s->NextBatch(32);
//     if (batch.empty()) break;                    // the space is exhausted
//     TF_RETURN_IF_ERROR(s->Update(Measure(batch)));
//   }
#ifndef TUNEFARM_TUNER_SEARCH_SEARCH_STRATEGY_H_
#define TUNEFARM_TUNER_SEARCH_SEARCH_STRATEGY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {

// One measured config.
struct MeasuredPoint {
  int64_t index;
  double cost_s;  // +inf when the measurement failed.
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;

  // Up to `n` distinct config indices never proposed or measured before; fewer (possibly none)
  // when the space is exhausted.
  // InvalidArgument: n < 0. Internal/InvalidArgument from a model-based strategy's cost model or
  // feature function.
  virtual absl::StatusOr<std::vector<int64_t>> NextBatch(int n) = 0;

  // Measured results, in any order; also used to preload history on resume (indices that were
  // never proposed are fine). Measured indices are never proposed afterwards.
  // InvalidArgument: an index outside the space.
  virtual absl::Status Update(const std::vector<MeasuredPoint>& results) = 0;

  // "random", "grid", "ga", "xgb".
  virtual std::string name() const = 0;
};

// InvalidArgument when a result's index is outside [0, space.size()).
absl::Status CheckMeasuredPoints(const ConfigSpace& space,
                                 const std::vector<MeasuredPoint>& results);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_SEARCH_STRATEGY_H_
