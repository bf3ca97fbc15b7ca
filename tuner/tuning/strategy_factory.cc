#include "tuner/tuning/strategy_factory.h"

#include <random>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tunefarm::tuner {
namespace {

// Interim uniform search until the search library lands.
class UniformSearch : public SearchStrategy {
 public:
  UniformSearch(std::shared_ptr<const ConfigSpace> space, uint64_t seed)
      : space_(std::move(space)), rng_(seed) {}
  absl::StatusOr<std::vector<int64_t>> NextBatch(int n) override {
    std::vector<int64_t> out;
    for (int tries = 0; static_cast<int>(out.size()) < n && tries < 100 * n; ++tries) {
      int64_t i = static_cast<int64_t>(rng_() % static_cast<uint64_t>(space_->size()));
      if (visited_.insert(i).second) out.push_back(i);
    }
    return out;
  }
  absl::Status Update(const std::vector<MeasuredPoint>& results) override {
    for (const auto& r : results) visited_.insert(r.index);
    return absl::OkStatus();
  }
  std::string name() const override { return "random"; }

 private:
  std::shared_ptr<const ConfigSpace> space_;
  std::mt19937_64 rng_;
  std::set<int64_t> visited_;
};

}  // namespace

std::vector<std::string> StrategyNames() { return {"xgb", "xgb_reg", "ga", "random", "grid"}; }

absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeStrategy(const std::string& name,
                                                             const TuneTask& task, uint64_t seed,
                                                             db::TuningLog* log) {
  (void)log;
  std::vector<std::string> names = StrategyNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown search strategy '", name, "' (expected ", absl::StrJoin(names, ", "), ")"));
  }
  return std::make_unique<UniformSearch>(task.space, seed);
}

}  // namespace tunefarm::tuner
