// Search strategies over a config space (placeholder interface; the search library fills it).
#ifndef TUNEFARM_TUNER_SEARCH_SEARCH_STRATEGY_H_
#define TUNEFARM_TUNER_SEARCH_SEARCH_STRATEGY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace tunefarm::tuner {

struct MeasuredPoint {
  int64_t index;
  double cost_s;  // +inf when the measurement failed.
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  virtual absl::StatusOr<std::vector<int64_t>> NextBatch(int n) = 0;
  virtual absl::Status Update(const std::vector<MeasuredPoint>& results) = 0;
  virtual std::string name() const = 0;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SEARCH_SEARCH_STRATEGY_H_
