// The cost model interface of the model-based search: learns which configs run fast from
// (features, measured cost) pairs and scores unmeasured configs. Scores only need to rank
// configs (higher = predicted faster); they are not seconds.
#ifndef TUNEFARM_TUNER_COST_MODEL_COST_MODEL_H_
#define TUNEFARM_TUNER_COST_MODEL_COST_MODEL_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tunefarm::tuner {

class CostModel {
 public:
  virtual ~CostModel() = default;

  // Trains from scratch on rows `x` (all of the same length) with measured `cost_s` in seconds;
  // a cost that is +inf, NaN or <= 0 means the measurement failed and the row trains as a very
  // slow config. `group` holds one workload id per row (ranking pairs are formed only within a
  // group, and labels are normalized per group); empty means one group. Feature values that are
  // NaN or infinite are treated as missing.
  // InvalidArgument: no rows, rows of different lengths, or a size mismatch with cost_s/group.
  // Internal: the learning library failed.
  virtual absl::Status Fit(const std::vector<std::vector<float>>& x,
                           const std::vector<double>& cost_s, const std::vector<int>& group) = 0;

  // One score per row; higher = predicted faster.
  // FailedPrecondition: called before the first successful Fit.
  // InvalidArgument: a row's length differs from the training rows'.
  virtual absl::StatusOr<std::vector<float>> Predict(
      const std::vector<std::vector<float>>& x) const = 0;

  // True after a successful Fit.
  virtual bool trained() const = 0;
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_COST_MODEL_COST_MODEL_H_
