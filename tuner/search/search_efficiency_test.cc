// Sample efficiency on synthetic landscapes, replayed: model-based annealing and the genetic
// search must reach a config within 10% of the optimum's throughput in fewer trials than
// random search (median over several seeds); and on a program of stages, the model-based
// search with stage crossover in fewer trials than without.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tuner/cost_model/xgboost_cost_model.h"
#include "tuner/search/genetic_search.h"
#include "tuner/search/model_based_search.h"
#include "tuner/search/random_search.h"
#include "tuner/search/replay.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {
namespace {

constexpr int kNumKnobs = 6;
constexpr int kChoices = 10;
constexpr int kBudget = 600;          // Trials per replay of GA and xgb.
constexpr int kRandomBudget = 20000;  // Random search is cheap to replay.
constexpr int kBatch = 32;

// A separable landscape over 10^6 configs: every knob has a best choice and the cost grows
// quadratically away from it, with per-knob weights. The optimum costs exactly 1.
struct Landscape {
  ConfigSpace space;
  std::vector<int64_t> target;
  std::vector<double> weight;

  explicit Landscape(uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<int64_t> values;
    for (int v = 0; v < kChoices; ++v) values.push_back(v);
    for (int k = 0; k < kNumKnobs; ++k) {
      space.DefineOther("k" + std::to_string(k), values);
      target.push_back(std::uniform_int_distribution<int64_t>(0, kChoices - 1)(rng));
      weight.push_back(std::uniform_real_distribution<double>(1.0, 3.0)(rng));
    }
  }
  double Cost(int64_t index) const {
    std::vector<int64_t> c = space.Decompose(index);
    double cost = 1.0;
    for (int k = 0; k < kNumKnobs; ++k) {
      double d = static_cast<double>(c[k] - target[k]) / (kChoices - 1);
      cost += weight[k] * d * d;
    }
    return cost;
  }
};

int Median(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One line per strategy: its trials to 90% per seed and their median.
void ShowTrials(const char* name, const std::vector<int>& t) {
  std::printf("%-20s trials to 90%% of optimal:", name);
  for (int x : t) std::printf(" %d", x);
  std::printf("  (median %d; budget+1 = not reached)\n", Median(t));
}

// Trials to reach 90% of the optimal throughput; budget + 1 when not reached.
int TrialsTo90(SearchStrategy& s, const Landscape& l, int budget) {
  auto r = Replay(
      s, [&](int64_t i) -> std::optional<double> { return l.Cost(i); }, budget, kBatch);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return budget + 1;
  int t = TrialsToReach(r->best_so_far, 1.0 / 0.9);
  return t < 0 ? budget + 1 : t;
}

TEST(SearchEfficiency, SyntheticLandscape_ModelAndGaBeatRandom) {
  const std::vector<uint64_t> seeds = {1, 2, 3, 4, 5};
  std::vector<int> random_t, ga_t, xgb_t;
  double xgb_seconds = 0;
  for (uint64_t seed : seeds) {
    Landscape l(seed * 1000 + 17);
    if (seed == 1) {
      int64_t good = 0;
      for (int64_t i = 0; i < l.space.size(); ++i) good += l.Cost(i) <= 1.0 / 0.9;
      std::printf("landscape %s: %.4f%% of configs within 90%% of optimal\n",
                  l.space.Describe().c_str(), 100.0 * good / l.space.size());
    }
    // Random search is cheap and noisy: its number per landscape is the median of 9 seeds.
    std::vector<int> per_seed;
    for (uint64_t r = 0; r < 9; ++r) {
      per_seed.push_back(
          TrialsTo90(**MakeRandomSearch(&l.space, seed * 100 + r), l, kRandomBudget));
    }
    random_t.push_back(Median(per_seed));

    GeneticOptions g;
    g.seed = seed;
    ga_t.push_back(TrialsTo90(**MakeGeneticSearch(&l.space, g), l, kBudget));

    ModelSearchOptions o;
    o.seed = seed;
    FeatureFn f = [&l](int64_t i) -> absl::StatusOr<std::vector<float>> {
      return l.space.KnobFeatures(i);
    };
    auto t0 = std::chrono::steady_clock::now();
    auto xgb = *MakeModelBasedSearch(&l.space, *MakeXGBoostCostModel(XGBoostOptions()), f, o);
    xgb_t.push_back(TrialsTo90(*xgb, l, kBudget));
    xgb_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  ShowTrials("random", random_t);
  ShowTrials("ga", ga_t);
  ShowTrials("xgb+sa", xgb_t);
  std::printf("xgb+sa wall time per replay: %.2f s\n", xgb_seconds / seeds.size());
  EXPECT_LT(Median(xgb_t), Median(random_t));
  EXPECT_LT(Median(ga_t), Median(random_t));
  EXPECT_LE(Median(xgb_t), kBudget / 2);
}

constexpr int kStages = 5;
constexpr int kStageKnobs = 4;
constexpr int kStageChoices = 6;

// A program of stages, as a generated space names its knobs ("s<j>.k<i>"): its time is the sum
// of its stages' times, and a stage is fast only when its knobs fit together (each pair of knobs
// must sum to the stage's own residue mod 6, as a tile must fit a register budget), with a
// smaller quadratic pull toward a preferred choice. 6^20 configs.
struct StagedLandscape {
  ConfigSpace space;
  std::vector<double> weight;                 // Per stage.
  std::vector<std::vector<int64_t>> residue;  // Per stage, per pair of knobs.
  std::vector<std::vector<int64_t>> prefer;   // Per stage, per knob.
  double optimum = 0;

  explicit StagedLandscape(uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> choice(0, kStageChoices - 1);
    std::vector<int64_t> values;
    for (int v = 0; v < kStageChoices; ++v) values.push_back(v);
    for (int j = 0; j < kStages; ++j) {
      for (int i = 0; i < kStageKnobs; ++i) {
        space.DefineOther("s" + std::to_string(j) + ".k" + std::to_string(i), values);
      }
      weight.push_back(std::uniform_real_distribution<double>(0.5, 2.0)(rng));
      residue.push_back({choice(rng), choice(rng)});
      std::vector<int64_t> p;
      for (int i = 0; i < kStageKnobs; ++i) p.push_back(choice(rng));
      prefer.push_back(p);
    }
    // The stages are independent: the optimum is the sum of each stage's best.
    for (int j = 0; j < kStages; ++j) {
      double best = 1e30;
      std::vector<int64_t> c(kStageKnobs, 0);
      for (int64_t n = 0; n < 1296; ++n) {  // 6^4 choices of one stage.
        for (int i = 0, m = n; i < kStageKnobs; ++i, m /= kStageChoices) c[i] = m % kStageChoices;
        best = std::min(best, StageCost(j, c.data()));
      }
      optimum += best;
    }
  }
  double StageCost(int j, const int64_t* c) const {
    double cost = 1.0;
    for (int pair = 0; pair < kStageKnobs / 2; ++pair) {
      if ((c[2 * pair] + c[2 * pair + 1]) % kStageChoices != residue[j][pair]) cost += 0.5;
    }
    for (int i = 0; i < kStageKnobs; ++i) {
      const double d = static_cast<double>(c[i] - prefer[j][i]) / (kStageChoices - 1);
      cost += 0.1 * d * d;
    }
    return weight[j] * cost;
  }
  double Cost(int64_t index) const {
    const std::vector<int64_t> c = space.Decompose(index);
    double cost = 0;
    for (int j = 0; j < kStages; ++j) cost += StageCost(j, &c[j * kStageKnobs]);
    return cost;
  }
};

TEST(SearchEfficiency, StagedProgram_CrossoverReachesTheOptimumSooner) {
  constexpr int kStagedBudget = 400;
  std::vector<int> off_t, on_t;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    StagedLandscape l(seed * 7919 + 3);
    for (int crossover_top : {0, 8}) {
      ModelSearchOptions o;
      o.seed = seed;
      o.local_share = 0.125;  // As strategy_factory.cc sets them.
      o.diversity_filter_ratio = 2.0;
      o.min_fit_points = 16;
      o.crossover_top = crossover_top;
      FeatureFn f = [&l](int64_t i) -> absl::StatusOr<std::vector<float>> {
        return l.space.KnobFeatures(i);
      };
      auto xgb = *MakeModelBasedSearch(&l.space, *MakeXGBoostCostModel(XGBoostOptions()), f, o);
      auto r = Replay(
          *xgb, [&](int64_t i) -> std::optional<double> { return l.Cost(i); }, kStagedBudget,
          kBatch);
      ASSERT_TRUE(r.ok()) << r.status();
      const int t = TrialsToReach(r->best_so_far, l.optimum / 0.9);
      (crossover_top > 0 ? on_t : off_t).push_back(t < 0 ? kStagedBudget + 1 : t);
    }
  }
  ShowTrials("staged, no crossover", off_t);
  ShowTrials("staged, crossover 8", on_t);
  EXPECT_LT(Median(on_t), Median(off_t));
}

}  // namespace
}  // namespace tunefarm::tuner
