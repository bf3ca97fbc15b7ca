#include "tuner/search/model_based_search.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "common/parallel_for.h"
#include "tuner/search/admitted_order.h"
#include "tuner/search/diversity_filter.h"
#include "tuner/space/knob_stages.h"

namespace tunefarm::tuner {
namespace {

// The score of a config whose features failed: below anything a model predicts.
constexpr float kInvalidScore = -1e30f;

class ModelBasedSearch : public SearchStrategy {
 public:
  ModelBasedSearch(const ConfigSpace* space, std::unique_ptr<CostModel> model, FeatureFn features,
                   ModelSearchOptions options)
      : space_(space),
        model_(std::move(model)),
        features_(std::move(features)),
        options_(std::move(options)),
        rng_(options_.seed),
        random_order_(space, options_.seed ^ 0xbb67ae8584caa73bull) {
    own_group_ = 0;
    for (int g : options_.history.group) own_group_ = std::max(own_group_, g + 1);
    if (options_.crossover_top > 1) stages_ = StagesOf(*space_);
  }

  absl::StatusOr<std::vector<int64_t>> NextBatch(int n) override {
    if (n < 0) return absl::InvalidArgumentError("NextBatch: n must be >= 0");
    if (!model_->trained() && !options_.history.x.empty()) {
      if (absl::Status s = Fit(); !s.ok()) return s;
    }
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    std::vector<int64_t> out;
    int plans = 0;
    while (static_cast<int>(out.size()) < n) {
      int64_t idx = -1;
      const double draw = coin(rng_);
      bool explore = !model_->trained() || draw < options_.epsilon;
      if (!explore && draw < options_.epsilon + options_.local_share)
        idx = UnvisitedNeighborOfBest();
      if (!explore && idx < 0) {
        if ((plan_stale_ || plan_.empty()) && plans < 3) {
          if (absl::Status s = Plan(); !s.ok()) return s;
          ++plans;
        }
        while (!plan_.empty() && idx < 0) {
          int64_t c = plan_.front();
          plan_.pop_front();
          if (!visited_.contains(c)) idx = c;
        }
      }
      if (idx < 0) idx = RandomUnvisited();
      if (idx < 0) break;  // Exhausted.
      visited_.insert(idx);
      out.push_back(idx);
    }
    return out;
  }

  absl::Status Update(const std::vector<MeasuredPoint>& results) override {
    if (absl::Status s = CheckMeasuredPoints(*space_, results); !s.ok()) return s;
    std::vector<int64_t> measured;
    for (const MeasuredPoint& p : results) measured.push_back(p.index);
    Prefetch(measured);
    int added = 0;
    for (const MeasuredPoint& p : results) {
      visited_.insert(p.index);
      const Entry& e = Features(p.index);
      if (!e.ok) continue;
      train_x_.push_back(e.x);
      train_cost_.push_back(p.cost_s);
      train_index_.push_back(p.index);
      ++added;
    }
    bool enough =
        static_cast<int>(train_x_.size()) >= options_.min_fit_points || !options_.history.x.empty();
    if (added == 0 || !enough) return absl::OkStatus();
    if (model_->trained()) {
      size_t grown = train_x_.size() - fitted_size_;
      double needed =
          std::max<double>(options_.refit_min_new_points,
                           options_.refit_growth * static_cast<double>(train_x_.size()));
      if (static_cast<double>(grown) < needed) return absl::OkStatus();
    }
    return Fit();
  }

  std::string name() const override { return "xgb"; }

 private:
  struct Entry {
    bool ok = false;
    std::vector<float> x;
  };

  // Cached features of `index`. The reference is valid until the next call.
  const Entry& Features(int64_t index) {
    auto it = cache_.find(index);
    if (it != cache_.end()) return it->second;
    if (static_cast<int>(cache_.size()) >= options_.feature_cache_capacity) cache_.clear();
    return Cache(index, features_(index));
  }

  // Caches what the feature function returned for `index` (a miss; counted).
  const Entry& Cache(int64_t index, absl::StatusOr<std::vector<float>> f) {
    ++feature_evals_;
    Entry e;
    if (f.ok() && !f->empty()) {
      if (width_ == 0) width_ = f->size();
      if (f->size() == width_) {
        e.ok = true;
        e.x = *std::move(f);
      }
    }
    return cache_.emplace(index, std::move(e)).first->second;
  }

  // Computes the features of the configs of `indices` not cached yet on options_.feature_threads
  // threads, and caches them in the order of `indices`, as Features would one by one, so what is
  // cached does not depend on the threads.
  void Prefetch(const std::vector<int64_t>& indices) {
    std::vector<int64_t> missing;
    absl::flat_hash_set<int64_t> seen;
    for (int64_t idx : indices) {
      if (!cache_.contains(idx) && seen.insert(idx).second) missing.push_back(idx);
    }
    const size_t capacity = static_cast<size_t>(options_.feature_cache_capacity);
    if (missing.size() < 2 || options_.feature_threads < 2 ||
        cache_.size() + missing.size() > capacity) {
      return;  // Features computes them one at a time, clearing the cache as it fills.
    }
    std::vector<absl::StatusOr<std::vector<float>>> out(missing.size(),
                                                        absl::UnknownError("not computed"));
    ParallelFor(missing.size(), options_.feature_threads,
                [&](size_t i) { out[i] = features_(missing[i]); });
    for (size_t i = 0; i < missing.size(); ++i) Cache(missing[i], std::move(out[i]));
  }

  absl::Status Fit() {
    const TransferHistory& h = options_.history;
    std::vector<std::vector<float>> x = h.x;
    std::vector<double> cost = h.cost_s;
    std::vector<int> group = h.group;
    x.insert(x.end(), train_x_.begin(), train_x_.end());
    cost.insert(cost.end(), train_cost_.begin(), train_cost_.end());
    group.resize(x.size(), own_group_);
    if (x.empty()) return absl::OkStatus();
    if (absl::Status s = model_->Fit(x, cost, group); !s.ok()) return s;
    fitted_size_ = train_x_.size();
    plan_stale_ = true;
    return absl::OkStatus();
  }

  // Model scores of `indices`; configs the space's constraints reject, and configs with failed
  // features, get kInvalidScore (the rejected ones without computing their features).
  absl::StatusOr<std::vector<float>> Score(const std::vector<int64_t>& indices) {
    std::vector<size_t> admitted;  // Positions in `indices`.
    std::vector<int64_t> admitted_indices;
    for (size_t i = 0; i < indices.size(); ++i) {
      if (!space_->Admits(indices[i])) continue;
      admitted.push_back(i);
      admitted_indices.push_back(indices[i]);
    }
    Prefetch(admitted_indices);
    std::vector<std::vector<float>> rows;
    std::vector<int> row_of(indices.size(), -1);
    for (size_t i : admitted) {
      const Entry& e = Features(indices[i]);
      if (!e.ok) continue;
      row_of[i] = static_cast<int>(rows.size());
      rows.push_back(e.x);
    }
    std::vector<float> out(indices.size(), kInvalidScore);
    if (rows.empty()) return out;
    absl::StatusOr<std::vector<float>> pred = model_->Predict(rows);
    if (!pred.ok()) return pred.status();
    for (size_t i = 0; i < indices.size(); ++i) {
      if (row_of[i] >= 0) out[i] = (*pred)[row_of[i]];
    }
    return out;
  }

  // A random neighbor: one knob (with more than one choice) moved to another choice.
  int64_t Neighbor(int64_t index) {
    std::vector<int64_t> c = space_->Decompose(index);
    std::vector<int> movable;
    for (int k = 0; k < space_->num_knobs(); ++k) {
      if (space_->knob(k).size() > 1) movable.push_back(k);
    }
    if (movable.empty()) return index;
    int k = movable[std::uniform_int_distribution<size_t>(0, movable.size() - 1)(rng_)];
    int64_t m = space_->knob(k).size();
    int64_t v = std::uniform_int_distribution<int64_t>(0, m - 2)(rng_);
    c[k] = v >= c[k] ? v + 1 : v;
    return space_->Compose(c);
  }

  // The knobs with more than one choice of each stage of a generated space (knob_stages.h);
  // empty when fewer than two stages have such knobs.
  static std::vector<std::vector<int>> StagesOf(const ConfigSpace& space) {
    std::vector<std::vector<int>> stages;
    for (const KnobStage& stage : KnobStages(space)) {
      std::vector<int> movable;
      for (int k : stage.knobs) {
        if (space.knob(k).size() > 1) movable.push_back(k);
      }
      if (!movable.empty()) stages.push_back(std::move(movable));
    }
    if (stages.size() < 2) stages.clear();
    return stages;
  }

  // The `k` fastest configs measured (each once, fastest first; failures left out).
  std::vector<int64_t> FastestMeasured(size_t k) const {
    std::vector<size_t> rows;
    for (size_t i = 0; i < train_index_.size(); ++i) {
      if (std::isfinite(train_cost_[i])) rows.push_back(i);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [&](size_t a, size_t b) { return train_cost_[a] < train_cost_[b]; });
    std::vector<int64_t> out;
    absl::flat_hash_set<int64_t> seen;
    for (size_t row : rows) {
      if (out.size() >= k) break;
      if (seen.insert(train_index_[row]).second) out.push_back(train_index_[row]);
    }
    return out;
  }

  // Unvisited crossover children of `base`: base with one stage's knobs taken from one of
  // `donors` (see ModelSearchOptions::crossover_top).
  std::vector<int64_t> UnvisitedChildren(int64_t base, const std::vector<int64_t>& donors) const {
    std::vector<int64_t> out;
    if (stages_.empty()) return out;
    const std::vector<int64_t> c = space_->Decompose(base);
    for (int64_t donor : donors) {
      if (donor == base) continue;
      const std::vector<int64_t> d = space_->Decompose(donor);
      for (const std::vector<int>& stage : stages_) {
        std::vector<int64_t> child = c;
        for (int k : stage) child[k] = d[k];
        if (child == c) continue;
        const int64_t idx = space_->Compose(child);
        if (!visited_.contains(idx) && space_->Admits(child)) out.push_back(idx);
      }
    }
    return out;
  }

  // An unvisited config one knob away from the fastest measured config, or one of its crossover
  // children, drawn at random; the next fastest's when all of those are visited (among the
  // local_top fastest); -1 if none.
  int64_t UnvisitedNeighborOfBest() {
    const std::vector<int64_t> fastest =
        FastestMeasured(std::max<size_t>(options_.local_top, std::max(0, options_.crossover_top)));
    const std::vector<int64_t> donors(
        fastest.begin(),
        fastest.begin() + std::min<size_t>(fastest.size(), std::max(0, options_.crossover_top)));
    for (size_t b = 0; b < fastest.size() && static_cast<int>(b) < options_.local_top; ++b) {
      const std::vector<int64_t> c = space_->Decompose(fastest[b]);
      std::vector<int64_t> unvisited = UnvisitedChildren(fastest[b], donors);
      for (int k = 0; k < space_->num_knobs(); ++k) {
        std::vector<int64_t> n = c;
        for (int64_t v = 0; v < space_->knob(k).size(); ++v) {
          if (v == c[k]) continue;
          n[k] = v;
          const int64_t idx = space_->Compose(n);
          if (!visited_.contains(idx) && space_->Admits(n)) unvisited.push_back(idx);
        }
      }
      if (!unvisited.empty()) {
        return unvisited[std::uniform_int_distribution<size_t>(0, unvisited.size() - 1)(rng_)];
      }
    }
    return -1;
  }

  int64_t RandomUnvisited() {
    while (std::optional<int64_t> i = random_order_.Next()) {
      if (!visited_.contains(*i)) return *i;
    }
    return -1;
  }

  // Simulated annealing: refills plan_ with the best-scored unvisited configs.
  absl::Status Plan() {
    plan_.clear();
    plan_stale_ = false;
    const double ratio = std::max(1.0, options_.diversity_filter_ratio);
    const size_t keep = static_cast<size_t>(std::ceil(options_.plan_size * ratio));
    std::set<std::pair<float, int64_t>> top;  // Ascending: begin() is the worst kept.
    absl::flat_hash_set<int64_t> in_top;
    auto offer = [&](int64_t idx, float score) {
      if (score <= kInvalidScore || visited_.contains(idx) || in_top.contains(idx)) return false;
      if (top.size() >= keep) {
        if (score <= top.begin()->first) return false;
        in_top.erase(top.begin()->second);
        top.erase(top.begin());
      }
      top.insert({score, idx});
      in_top.insert(idx);
      return true;
    };

    while (static_cast<int>(chains_.size()) < options_.num_chains) {
      chains_.push_back(DrawAdmitted(*space_, rng_));
    }
    SeedChainsFromBestMeasured();
    absl::StatusOr<std::vector<float>> cur = Score(chains_);
    if (!cur.ok()) return cur.status();
    for (size_t c = 0; c < chains_.size(); ++c) offer(chains_[c], (*cur)[c]);
    if (!stages_.empty()) {
      // Every unvisited crossover child of the fastest configs, ranked by the model.
      const std::vector<int64_t> parents = FastestMeasured(options_.crossover_top);
      std::vector<int64_t> children;
      absl::flat_hash_set<int64_t> seen;
      for (int64_t p : parents) {
        for (int64_t child : UnvisitedChildren(p, parents)) {
          if (seen.insert(child).second) children.push_back(child);
        }
      }
      absl::StatusOr<std::vector<float>> score = Score(children);
      if (!score.ok()) return score.status();
      for (size_t i = 0; i < children.size(); ++i) offer(children[i], (*score)[i]);
    }

    std::uniform_real_distribution<double> coin(0.0, 1.0);
    const int64_t evals_at_start = feature_evals_;
    std::vector<int64_t> next(chains_.size());
    int unchanged = 0;
    for (int step = 0; step < options_.max_steps; ++step) {
      if (feature_evals_ - evals_at_start >= options_.max_feature_evals) break;
      double t = options_.temp_start +
                 (options_.temp_end - options_.temp_start) * step / options_.max_steps;
      for (size_t c = 0; c < chains_.size(); ++c) next[c] = Neighbor(chains_[c]);
      absl::StatusOr<std::vector<float>> score = Score(next);
      if (!score.ok()) return score.status();
      bool changed = false;
      for (size_t c = 0; c < chains_.size(); ++c) {
        float s = (*score)[c];
        float d = s - (*cur)[c];
        if (d >= 0 || (t > 0 && coin(rng_) < std::exp(d / t))) {
          chains_[c] = next[c];
          (*cur)[c] = s;
        }
        changed |= offer(next[c], s);
      }
      unchanged = changed ? 0 : unchanged + 1;
      if (unchanged >= options_.early_stop) break;
    }

    std::vector<std::pair<float, int64_t>> best(top.rbegin(), top.rend());  // Best first.
    if (options_.diversity_filter_ratio > 1.0 && !best.empty()) {
      std::vector<float> scores;
      std::vector<std::vector<int64_t>> choices;
      for (const auto& [s, idx] : best) {
        scores.push_back(s);
        choices.push_back(space_->Decompose(idx));
      }
      for (int i :
           DiversityPick(scores, choices, options_.plan_size, options_.diversity_knob_weight)) {
        plan_.push_back(best[i].second);
      }
    } else {
      for (const auto& entry : best) plan_.push_back(entry.second);
    }
    return absl::OkStatus();
  }

  // Restarts the first chains at the best measured configs (fastest first, each once).
  void SeedChainsFromBestMeasured() {
    const size_t seeds =
        std::min<size_t>({static_cast<size_t>(std::max(0, options_.measured_seed_chains)),
                          chains_.size() / 2, train_index_.size()});
    const std::vector<int64_t> fastest = FastestMeasured(seeds);
    std::copy(fastest.begin(), fastest.end(), chains_.begin());
  }

  const ConfigSpace* space_;
  std::unique_ptr<CostModel> model_;
  FeatureFn features_;
  ModelSearchOptions options_;
  std::mt19937_64 rng_;
  AdmittedOrder random_order_;  // Admitted configs first.
  int own_group_ = 0;

  absl::flat_hash_set<int64_t> visited_;  // Proposed or measured.
  absl::flat_hash_map<int64_t, Entry> cache_;
  size_t width_ = 0;  // Feature length, fixed by the first successful call.
  int64_t feature_evals_ = 0;

  // Training-set size at the last fit.
  size_t fitted_size_ = 0;
  std::vector<std::vector<float>> train_x_;  // This workload's measured rows.
  std::vector<double> train_cost_;
  std::vector<int64_t> train_index_;  // The config of each row of train_x_.

  std::deque<int64_t> plan_;
  bool plan_stale_ = false;      // The model was refit since plan_ was made.
  std::vector<int64_t> chains_;  // Annealing chain positions, kept across plans.
  // The knobs of each stage, for crossover (empty: off or a space of one stage).
  std::vector<std::vector<int>> stages_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SearchStrategy>> MakeModelBasedSearch(
    const ConfigSpace* space, std::unique_ptr<CostModel> model, FeatureFn features,
    ModelSearchOptions options) {
  if (space == nullptr || model == nullptr || !features) {
    return absl::InvalidArgumentError("MakeModelBasedSearch: null space, model or features");
  }
  if (options.plan_size < 1 || options.num_chains < 1 || options.max_steps < 1 ||
      options.early_stop < 1 || options.max_feature_evals < 1 ||
      options.feature_cache_capacity < 1 || options.feature_threads < 1 ||
      !(options.epsilon >= 0.0 && options.epsilon <= 1.0) ||
      !(options.local_share >= 0.0 && options.epsilon + options.local_share <= 1.0) ||
      options.local_top < 1) {
    return absl::InvalidArgumentError(
        "ModelSearchOptions out of range: plan_size, num_chains, max_steps, early_stop, "
        "max_feature_evals, feature_cache_capacity, feature_threads and local_top must be >= 1; "
        "epsilon and "
        "local_share >= 0 with epsilon + local_share <= 1");
  }
  const TransferHistory& h = options.history;
  if (h.cost_s.size() != h.x.size() || h.group.size() != h.x.size()) {
    return absl::InvalidArgumentError(
        "transfer history: x, cost_s and group must have one entry per row");
  }
  return std::make_unique<ModelBasedSearch>(space, std::move(model), std::move(features),
                                            std::move(options));
}

}  // namespace tunefarm::tuner
