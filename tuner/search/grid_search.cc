#include "tuner/search/grid_search.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"

namespace tunefarm::tuner {
namespace {

class GridSearch : public SearchStrategy {
 public:
  explicit GridSearch(const ConfigSpace* space) : space_(space) {}

  absl::StatusOr<std::vector<int64_t>> NextBatch(int n) override {
    if (n < 0) return absl::InvalidArgumentError("NextBatch: n must be >= 0");
    std::vector<int64_t> out;
    while (static_cast<int>(out.size()) < n && next_ < space_->size()) {
      int64_t i = next_++;
      if (!measured_.contains(i)) out.push_back(i);
    }
    return out;
  }

  absl::Status Update(const std::vector<MeasuredPoint>& results) override {
    if (absl::Status s = CheckMeasuredPoints(*space_, results); !s.ok()) return s;
    // Only indices ahead of the cursor can be proposed again.
    for (const MeasuredPoint& p : results) {
      if (p.index >= next_) measured_.insert(p.index);
    }
    return absl::OkStatus();
  }

  std::string name() const override { return "grid"; }

 private:
  const ConfigSpace* space_;
  int64_t next_ = 0;
  absl::flat_hash_set<int64_t> measured_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeGridSearch(const ConfigSpace* space) {
  if (space == nullptr) return absl::InvalidArgumentError("MakeGridSearch: null space");
  return std::make_unique<GridSearch>(space);
}

}  // namespace tunefarm::tuner
