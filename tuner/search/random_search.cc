#include "tuner/search/random_search.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "tuner/search/admitted_order.h"

namespace tunefarm::tuner {
namespace {

class RandomSearch : public SearchStrategy {
 public:
  RandomSearch(const ConfigSpace* space, uint64_t seed) : space_(space), order_(space, seed) {}

  absl::StatusOr<std::vector<int64_t>> NextBatch(int n) override {
    if (n < 0) return absl::InvalidArgumentError("NextBatch: n must be >= 0");
    std::vector<int64_t> out;
    while (static_cast<int>(out.size()) < n) {
      std::optional<int64_t> i = order_.Next();
      if (!i.has_value()) break;
      if (visited_.insert(*i).second) out.push_back(*i);
    }
    return out;
  }

  absl::Status Update(const std::vector<MeasuredPoint>& results) override {
    if (absl::Status s = CheckMeasuredPoints(*space_, results); !s.ok()) return s;
    for (const MeasuredPoint& p : results) visited_.insert(p.index);
    return absl::OkStatus();
  }

  std::string name() const override { return "random"; }

 private:
  const ConfigSpace* space_;
  AdmittedOrder order_;
  absl::flat_hash_set<int64_t> visited_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeRandomSearch(const ConfigSpace* space,
                                                                 uint64_t seed) {
  if (space == nullptr) return absl::InvalidArgumentError("MakeRandomSearch: null space");
  return std::make_unique<RandomSearch>(space, seed);
}

}  // namespace tunefarm::tuner
