#include "tuner/search/genetic_search.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "tuner/search/admitted_order.h"

namespace tunefarm::tuner {
namespace {

class GeneticSearch : public SearchStrategy {
 public:
  GeneticSearch(const ConfigSpace* space, const GeneticOptions& options)
      : space_(space),
        options_(options),
        rng_(options.seed),
        random_order_(space, options.seed ^ 0x6a09e667f3bcc909ull) {}

  absl::StatusOr<std::vector<int64_t>> NextBatch(int n) override {
    if (n < 0) return absl::InvalidArgumentError("NextBatch: n must be >= 0");
    std::vector<int64_t> out;
    while (static_cast<int>(out.size()) < n) {
      if (pending_.empty() && !Breed()) break;
      int64_t i = pending_.front();
      pending_.pop_front();
      if (visited_.insert(i).second) out.push_back(i);
    }
    return out;
  }

  absl::Status Update(const std::vector<MeasuredPoint>& results) override {
    if (absl::Status s = CheckMeasuredPoints(*space_, results); !s.ok()) return s;
    for (const MeasuredPoint& p : results) {
      visited_.insert(p.index);
      bool ok = p.cost_s > 0.0 && std::isfinite(p.cost_s);
      scored_.push_back({ok ? 1.0 / p.cost_s : 0.0, p.index});
    }
    return absl::OkStatus();
  }

  std::string name() const override { return "ga"; }

 private:
  // The next unvisited index in a fixed random order (admitted configs first), or -1 when the
  // space is exhausted.
  int64_t RandomUnvisited() {
    while (std::optional<int64_t> i = random_order_.Next()) {
      if (!visited_.contains(*i)) return *i;
    }
    return -1;
  }

  // Fills `pending_` with a new generation; false when nothing is left to propose.
  bool Breed() {
    // The population: the fittest measured configs with nonzero fitness.
    std::vector<std::pair<double, int64_t>> pop = scored_;
    std::sort(pop.begin(), pop.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    pop.erase(std::unique(pop.begin(), pop.end(),
                          [](const auto& a, const auto& b) { return a.second == b.second; }),
              pop.end());
    if (static_cast<int>(pop.size()) > options_.pop_size) pop.resize(options_.pop_size);
    while (!pop.empty() && pop.back().first <= 0.0) pop.pop_back();

    absl::flat_hash_set<int64_t> queued;
    if (pop.size() >= 2) {
      // Linear ranking: the fittest is drawn pop.size() times as often as the least fit.
      // Throughput ratios alone give little selection pressure late in a search, when the
      // population's costs are all within a few percent of each other.
      std::vector<double> weights;
      for (size_t r = 0; r < pop.size(); ++r)
        weights.push_back(static_cast<double>(pop.size() - r));
      std::discrete_distribution<int> pick(weights.begin(), weights.end());
      std::uniform_real_distribution<double> coin(0.0, 1.0);
      const int k = space_->num_knobs();
      const int max_tries = 20 * options_.pop_size;
      for (int tries = 0; static_cast<int>(queued.size()) < options_.pop_size && tries < max_tries;
           ++tries) {
        // Elites breed first, once each, so the best configs are always explored around.
        int a =
            tries < options_.elite_num && tries < static_cast<int>(pop.size()) ? tries : pick(rng_);
        int b = pick(rng_);
        std::vector<int64_t> ca = space_->Decompose(pop[a].second);
        std::vector<int64_t> cb = space_->Decompose(pop[b].second);
        std::vector<int64_t> child(k);
        for (int j = 0; j < k; ++j) {
          child[j] = coin(rng_) < 0.5 ? ca[j] : cb[j];
          int64_t m = space_->knob(j).size();
          if (m > 1 && coin(rng_) < options_.mutation_prob) {
            child[j] = std::uniform_int_distribution<int64_t>(0, m - 1)(rng_);
          }
        }
        if (!space_->Admits(child)) continue;
        int64_t idx = space_->Compose(child);
        if (visited_.contains(idx) || !queued.insert(idx).second) continue;
        pending_.push_back(idx);
      }
    }
    // The first generation, and whatever breeding could not fill, is uniform random.
    while (static_cast<int>(queued.size()) < options_.pop_size) {
      int64_t idx = RandomUnvisited();
      if (idx < 0) break;
      if (queued.insert(idx).second) pending_.push_back(idx);
    }
    return !pending_.empty();
  }

  const ConfigSpace* space_;
  GeneticOptions options_;
  std::mt19937_64 rng_;
  AdmittedOrder random_order_;
  absl::flat_hash_set<int64_t> visited_;            // Proposed or measured.
  std::vector<std::pair<double, int64_t>> scored_;  // (fitness, index) of measured configs.
  std::deque<int64_t> pending_;                     // The current generation, not yet out.
};

}  // namespace

absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeGeneticSearch(const ConfigSpace* space,
                                                                  const GeneticOptions& options) {
  if (space == nullptr) return absl::InvalidArgumentError("MakeGeneticSearch: null space");
  if (options.pop_size < 2 || options.elite_num < 0 || options.elite_num > options.pop_size ||
      !(options.mutation_prob >= 0.0 && options.mutation_prob <= 1.0)) {
    return absl::InvalidArgumentError(
        "GeneticOptions out of range: need pop_size >= 2, 0 <= elite_num <= pop_size, "
        "0 <= mutation_prob <= 1");
  }
  return std::make_unique<GeneticSearch>(space, options);
}

}  // namespace tunefarm::tuner
