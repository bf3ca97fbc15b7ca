#include "tuner/search/grid_search.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "tuner/search/admitted_order.h"

namespace tunefarm::tuner {
namespace {

class GridSearch : public SearchStrategy {
 public:
  explicit GridSearch(const ConfigSpace* space) : space_(space), order_(space, std::nullopt) {}

  absl::StatusOr<std::vector<int64_t>> NextBatch(int n) override {
    if (n < 0) return absl::InvalidArgumentError("NextBatch: n must be >= 0");
    std::vector<int64_t> out;
    while (static_cast<int>(out.size()) < n) {
      std::optional<int64_t> i = order_.Next();
      if (!i.has_value()) break;
      if (proposed_.insert(*i).second) out.push_back(*i);
    }
    return out;
  }

  absl::Status Update(const std::vector<MeasuredPoint>& results) override {
    if (absl::Status s = CheckMeasuredPoints(*space_, results); !s.ok()) return s;
    for (const MeasuredPoint& p : results) proposed_.insert(p.index);
    return absl::OkStatus();
  }

  std::string name() const override { return "grid"; }

 private:
  const ConfigSpace* space_;
  AdmittedOrder order_;                    // Index order, the admitted configs first.
  absl::flat_hash_set<int64_t> proposed_;  // Proposed or measured.
};

}  // namespace

absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeGridSearch(const ConfigSpace* space) {
  if (space == nullptr) return absl::InvalidArgumentError("MakeGridSearch: null space");
  return std::make_unique<GridSearch>(space);
}

}  // namespace tunefarm::tuner
