// Contract tests every strategy must pass, plus the diversity filter and replay.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tuner/cost_model/xgboost_cost_model.h"
#include "tuner/search/diversity_filter.h"
#include "tuner/search/genetic_search.h"
#include "tuner/search/grid_search.h"
#include "tuner/search/model_based_search.h"
#include "tuner/search/random_search.h"
#include "tuner/search/replay.h"
#include "tuner/space/config_space.h"

namespace tunefarm::tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// 10 x 10 x 10 = 1000 points.
std::unique_ptr<ConfigSpace> SmallSpace() {
  auto s = std::make_unique<ConfigSpace>();
  s->DefineOther("a", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  s->DefineOther("b", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  s->DefineOther("c", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  return s;
}

double SmallCost(const ConfigSpace& space, int64_t index) {
  std::vector<int64_t> c = space.Decompose(index);
  if (c[0] == 9 && c[1] == 9) return kInf;  // Some configs fail.
  return 1.0 + 0.3 * std::abs(c[0] - 6) + 0.2 * std::abs(c[1] - 2) + 0.1 * std::abs(c[2] - 4);
}

ModelSearchOptions FastModelOptions(uint64_t seed) {
  ModelSearchOptions o;
  o.plan_size = 32;
  o.num_chains = 32;
  o.max_steps = 100;
  o.min_fit_points = 32;
  o.max_feature_evals = 1000;
  o.seed = seed;
  return o;
}

std::unique_ptr<SearchStrategy> MakeXgb(const ConfigSpace* space, uint64_t seed,
                                        ModelSearchOptions o, FeatureFn f = nullptr) {
  XGBoostOptions xo;
  xo.num_boost_round = 30;
  if (!f)
    f = [space](int64_t i) -> absl::StatusOr<std::vector<float>> { return space->KnobFeatures(i); };
  return *MakeModelBasedSearch(space, *MakeXGBoostCostModel(xo), std::move(f), std::move(o));
}

// Every strategy, by name, on `space`.
std::unique_ptr<SearchStrategy> Make(const std::string& name, const ConfigSpace* space,
                                     uint64_t seed) {
  if (name == "random") return *MakeRandomSearch(space, seed);
  if (name == "grid") return *MakeGridSearch(space);
  if (name == "ga") {
    GeneticOptions g;
    g.pop_size = 50;
    g.seed = seed;
    return *MakeGeneticSearch(space, g);
  }
  return MakeXgb(space, seed, FastModelOptions(seed));
}

class StrategyContract : public ::testing::TestWithParam<std::string> {};

// Everything `s` proposes on the small space, in order, in batches of 37 until it stops; every
// third batch is left unreported when `skip_some_updates`.
std::vector<int64_t> ProposeAll(SearchStrategy& s, const ConfigSpace& space,
                                bool skip_some_updates) {
  std::vector<int64_t> order;
  int updates = 0;
  while (true) {
    auto batch = s.NextBatch(37);
    EXPECT_TRUE(batch.ok()) << batch.status();
    if (!batch.ok() || batch->empty() || order.size() > 2 * static_cast<size_t>(space.size())) {
      break;
    }
    std::vector<MeasuredPoint> m;
    for (int64_t i : *batch) {
      order.push_back(i);
      m.push_back({i, SmallCost(space, i)});
    }
    if (!skip_some_updates || ++updates % 3 != 0) EXPECT_TRUE(s.Update(m).ok());
  }
  return order;
}

TEST_P(StrategyContract, NextBatch_WholeSmallSpace_NoDuplicatesThenExhausted) {
  auto space = SmallSpace();
  auto s = Make(GetParam(), space.get(), 3);
  EXPECT_EQ(s->name(), GetParam() == "xgb" ? "xgb" : GetParam());
  // Some batches unreported: proposals alone must already block repeats.
  const std::vector<int64_t> order = ProposeAll(*s, *space, true);
  std::set<int64_t> seen;
  for (int64_t i : order) {
    ASSERT_GE(i, 0);
    ASSERT_LT(i, space->size());
    ASSERT_TRUE(seen.insert(i).second) << GetParam() << " proposed " << i << " twice";
  }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), space->size());
  auto again = s->NextBatch(5);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
}

TEST_P(StrategyContract, Update_PreloadedHistory_NeverProposed) {
  auto space = SmallSpace();
  auto s = Make(GetParam(), space.get(), 4);
  std::vector<MeasuredPoint> history;
  for (int64_t i = 0; i < space->size(); i += 2) history.push_back({i, SmallCost(*space, i)});
  ASSERT_TRUE(s->Update(history).ok());
  std::set<int64_t> seen;
  while (true) {
    auto batch = s->NextBatch(64);
    ASSERT_TRUE(batch.ok()) << batch.status();
    if (batch->empty()) break;
    for (int64_t i : *batch) {
      EXPECT_EQ(i % 2, 1) << GetParam() << " re-proposed measured config " << i;
      EXPECT_TRUE(seen.insert(i).second);
    }
  }
  EXPECT_EQ(seen.size(), 500u);
}

TEST_P(StrategyContract, BadArguments_InvalidArgument) {
  auto space = SmallSpace();
  auto s = Make(GetParam(), space.get(), 5);
  EXPECT_EQ(s->NextBatch(-1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s->Update({{space->size(), 1.0}}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s->Update({{-1, 1.0}}).code(), absl::StatusCode::kInvalidArgument);
  auto empty = s->NextBatch(0);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST_P(StrategyContract, Replay_SameSeed_SameProposals) {
  auto space = SmallSpace();
  CostLookup lookup = [&](int64_t i) -> std::optional<double> { return SmallCost(*space, i); };
  auto a = Make(GetParam(), space.get(), 9);
  auto b = Make(GetParam(), space.get(), 9);
  auto ra = Replay(*a, lookup, 200, 32);
  auto rb = Replay(*b, lookup, 200, 32);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(ra->indices, rb->indices);
}

// In a space with a constraint, every strategy proposes the configs it admits first (a random
// one, the grid, the genetic search's children, the model-based search's random slots,
// neighbors and plans), then the others: the whole space is still proposed once.
TEST_P(StrategyContract, Constraint_AdmittedConfigsFirst_ThenTheRest) {
  auto space = SmallSpace();
  space->AddConstraint("a_plus_b", [](const std::vector<int64_t>& c) { return c[0] + c[1] <= 6; });
  int64_t admitted = 0;
  for (int64_t i = 0; i < space->size(); ++i) admitted += space->Admits(i);
  ASSERT_EQ(admitted, 280);  // 28 of the 100 (a, b) pairs, times 10.
  auto s = Make(GetParam(), space.get(), 6);
  const std::vector<int64_t> order = ProposeAll(*s, *space, false);
  ASSERT_EQ(std::set<int64_t>(order.begin(), order.end()).size(), 1000u);
  ASSERT_EQ(order.size(), 1000u);
  for (int64_t k = 0; k < admitted; ++k) {
    EXPECT_TRUE(space->Admits(order[k]))
        << GetParam() << " proposed rejected config " << order[k] << " as its " << k << "th";
  }
}

INSTANTIATE_TEST_SUITE_P(All, StrategyContract, ::testing::Values("random", "grid", "ga", "xgb"),
                         [](const auto& info) { return info.param; });

TEST(RandomSearch, NextBatch_HugeSpace_DistinctProposals) {
  ConfigSpace space;
  for (int k = 0; k < 6; ++k)
    space.DefineOther("k" + std::to_string(k),
                      {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                       17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32});
  ASSERT_GT(space.size(), int64_t{1} << 29);
  auto s = *MakeRandomSearch(&space, 1);
  auto batch = s->NextBatch(5000);
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(std::set<int64_t>(batch->begin(), batch->end()).size(), 5000u);
}

// A constraint that admits one config in about 4,700 of a space of 2^30: a random search still
// proposes only admitted ones, and the model-based search's random slots and plans too.
TEST(RandomSearch, HugeSpace_RareAdmittedConfigs_OnlyThoseProposed) {
  ConfigSpace space;
  std::vector<int64_t> values;
  for (int64_t v = 0; v < 32; ++v) values.push_back(v);
  for (int k = 0; k < 6; ++k) space.DefineOther("k" + std::to_string(k), values);
  space.AddConstraint("small", [](const std::vector<int64_t>& c) {
    return c[0] + c[1] + c[2] + c[3] + c[4] + c[5] <= 20;
  });
  for (const std::string name : {"random", "xgb"}) {
    auto s = Make(name, &space, 2);
    for (int round = 0; round < 3; ++round) {
      auto batch = s->NextBatch(64);
      ASSERT_TRUE(batch.ok()) << batch.status();
      ASSERT_EQ(batch->size(), 64u);
      std::vector<MeasuredPoint> m;
      for (int64_t i : *batch) {
        EXPECT_TRUE(space.Admits(i)) << name << " proposed " << i;
        std::vector<int64_t> c = space.Decompose(i);
        m.push_back({i, 1.0 + 0.01 * static_cast<double>(c[0] + 2 * c[1])});
      }
      ASSERT_TRUE(s->Update(m).ok());
    }
  }
}

TEST(GridSearch, NextBatch_InOrder_SkipsMeasured) {
  auto space = SmallSpace();
  auto s = *MakeGridSearch(space.get());
  ASSERT_TRUE(s->Update({{1, 1.0}, {3, 1.0}}).ok());
  EXPECT_EQ(*s->NextBatch(4), (std::vector<int64_t>{0, 2, 4, 5}));
}

TEST(MakeStrategies, BadOptions_InvalidArgument) {
  auto space = SmallSpace();
  EXPECT_EQ(MakeRandomSearch(nullptr, 1).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeGridSearch(nullptr).status().code(), absl::StatusCode::kInvalidArgument);
  GeneticOptions g;
  g.pop_size = 1;
  EXPECT_EQ(MakeGeneticSearch(space.get(), g).status().code(), absl::StatusCode::kInvalidArgument);
  ModelSearchOptions o;
  o.epsilon = 2.0;
  auto f = [](int64_t) -> absl::StatusOr<std::vector<float>> { return std::vector<float>{1}; };
  EXPECT_EQ(MakeModelBasedSearch(space.get(), *MakeXGBoostCostModel({}), f, o).status().code(),
            absl::StatusCode::kInvalidArgument);
  o = ModelSearchOptions();
  o.epsilon = 0.5;
  o.local_share = 0.6;  // More than the slots left after epsilon.
  EXPECT_EQ(MakeModelBasedSearch(space.get(), *MakeXGBoostCostModel({}), f, o).status().code(),
            absl::StatusCode::kInvalidArgument);
  o = ModelSearchOptions();
  o.feature_threads = 0;
  EXPECT_EQ(MakeModelBasedSearch(space.get(), *MakeXGBoostCostModel({}), f, o).status().code(),
            absl::StatusCode::kInvalidArgument);
  o = ModelSearchOptions();
  o.history.x = {{1.0f}};
  EXPECT_EQ(MakeModelBasedSearch(space.get(), *MakeXGBoostCostModel({}), f, o).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeModelBasedSearch(space.get(), nullptr, f, ModelSearchOptions()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Configs whose features fail (invalid schedules) must not break the search.
TEST(ModelBasedSearch, FeatureFailures_TreatedAsSlow_SearchContinues) {
  auto space = SmallSpace();
  std::set<int64_t> asked;
  FeatureFn f = [&](int64_t i) -> absl::StatusOr<std::vector<float>> {
    asked.insert(i);
    if (i % 5 == 0) return absl::InvalidArgumentError("invalid config");
    return space->KnobFeatures(i);
  };
  auto s = MakeXgb(space.get(), 1, FastModelOptions(1), f);
  CostLookup lookup = [&](int64_t i) -> std::optional<double> {
    if (i % 5 == 0) return std::nullopt;
    return SmallCost(*space, i);
  };
  auto r = Replay(*s, lookup, 200, 32);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->indices.size(), 200u);
  // After the model is trained, planned configs (95%) avoid the failing ones.
  int failing = 0;
  for (size_t t = 64; t < r->indices.size(); ++t) failing += r->indices[t] % 5 == 0;
  EXPECT_LT(failing, 20);
}

// feature_threads computes a step's features at once on several threads, and the search
// proposes what it proposes on one thread: the same configs in the same order, from the same
// feature calls.
TEST(ModelBasedSearch, FeatureThreads_ConcurrentFeatures_SameProposalsAsOneThread) {
  auto space = SmallSpace();
  struct Calls {
    absl::Mutex mu;
    std::multiset<int64_t> indices ABSL_GUARDED_BY(mu);
    int started ABSL_GUARDED_BY(mu) = 0;
    int in_flight ABSL_GUARDED_BY(mu) = 0;
    int most_in_flight ABSL_GUARDED_BY(mu) = 0;
    bool first ABSL_GUARDED_BY(mu) = true;
  };
  auto run = [&](int threads, Calls* calls) {
    FeatureFn f = [&, calls](int64_t i) -> absl::StatusOr<std::vector<float>> {
      absl::MutexLock lock(&calls->mu);
      calls->indices.insert(i);
      ++calls->started;
      ++calls->in_flight;
      calls->most_in_flight = std::max(calls->most_in_flight, calls->in_flight);
      if (calls->first && threads > 1) {
        // The first call (a batch of misses) waits for a second one to start beside it: with
        // one thread at a time it gives up after 10 s, and the test fails below.
        calls->first = false;
        calls->mu.AwaitWithTimeout(absl::Condition(
                                       +[](int* started) { return *started > 1; }, &calls->started),
                                   absl::Seconds(10));
      }
      --calls->in_flight;
      if (i % 7 == 0) return absl::InvalidArgumentError("invalid config");
      return space->KnobFeatures(i);
    };
    ModelSearchOptions o = FastModelOptions(5);
    o.feature_threads = threads;
    auto s = MakeXgb(space.get(), 5, o, f);
    CostLookup lookup = [&](int64_t i) -> std::optional<double> { return SmallCost(*space, i); };
    auto r = Replay(*s, lookup, 160, 32);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->indices : std::vector<int64_t>{};
  };
  Calls one, four;
  const std::vector<int64_t> serial = run(1, &one);
  const std::vector<int64_t> threaded = run(4, &four);
  ASSERT_EQ(serial.size(), 160u);
  EXPECT_EQ(threaded, serial);
  absl::MutexLock a(&one.mu), b(&four.mu);
  EXPECT_EQ(one.most_in_flight, 1);
  EXPECT_GT(four.most_in_flight, 1);
  EXPECT_EQ(four.indices, one.indices);  // Each config's features computed once, as before.
}

// Transfer learning: a model-based search given history of a related workload finds good
// configs in its very first batches, before it has measured anything itself.
TEST(ModelBasedSearch, TransferHistory_FirstBatchesBetterThanRandom) {
  auto space = SmallSpace();
  ModelSearchOptions o = FastModelOptions(2);
  // The other workload: the same landscape on another time scale.
  for (int64_t i = 0; i < space->size(); i += 3) {
    o.history.x.push_back(space->KnobFeatures(i));
    o.history.cost_s.push_back(4.0 * SmallCost(*space, i));
    o.history.group.push_back(12);
  }
  auto s = MakeXgb(space.get(), 2, o);
  auto random = *MakeRandomSearch(space.get(), 2);
  CostLookup lookup = [&](int64_t i) -> std::optional<double> { return SmallCost(*space, i); };
  auto rs = Replay(*s, lookup, 32, 32);
  auto rr = Replay(*random, lookup, 32, 32);
  ASSERT_TRUE(rs.ok() && rr.ok()) << rs.status();
  std::printf("first 32 trials: transfer best %.3f, random best %.3f\n", rs->best_so_far.back(),
              rr->best_so_far.back());
  EXPECT_LT(rs->best_so_far.back(), rr->best_so_far.back());
  EXPECT_LE(rs->best_so_far.back(), 1.2);
}

// With local_share, once the model is fit, slots go to unvisited configs one knob away from
// the fastest measured one: its whole neighborhood is measured within as many slots as it has
// unvisited neighbors, whatever the model scores them, and then the next fastest's.
TEST(ModelBasedSearch, LocalShare_MeasuresTheFastestsNeighborhood) {
  auto space = SmallSpace();
  ModelSearchOptions o = FastModelOptions(4);
  o.epsilon = 0;
  o.local_share = 1;
  auto s = MakeXgb(space.get(), 4, o);
  auto first = s->NextBatch(32);  // Random: the model is not fit yet.
  ASSERT_TRUE(first.ok()) << first.status();
  std::vector<MeasuredPoint> points;
  std::set<int64_t> visited;
  int64_t best = -1;
  for (int64_t i : *first) {
    points.push_back({i, SmallCost(*space, i)});
    visited.insert(i);
    if (best < 0 || SmallCost(*space, i) < SmallCost(*space, best)) best = i;
  }
  ASSERT_TRUE(s->Update(points).ok());
  auto neighbors = [&](int64_t index) {
    std::set<int64_t> out;
    const std::vector<int64_t> c = space->Decompose(index);
    for (int k = 0; k < space->num_knobs(); ++k) {
      for (int64_t v = 0; v < space->knob(k).size(); ++v) {
        std::vector<int64_t> n = c;
        n[k] = v;
        if (v != c[k] && !visited.count(space->Compose(n))) out.insert(space->Compose(n));
      }
    }
    return out;
  };
  const std::set<int64_t> around_best = neighbors(best);
  ASSERT_FALSE(around_best.empty());
  auto next = s->NextBatch(static_cast<int>(around_best.size()));
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(std::set<int64_t>(next->begin(), next->end()), around_best);
  // Off, the same search plans by the model alone: it does not propose exactly that set.
  o.local_share = 0;
  auto plain = MakeXgb(space.get(), 4, o);
  ASSERT_TRUE(plain->NextBatch(32).ok());
  ASSERT_TRUE(plain->Update(points).ok());
  auto planned = plain->NextBatch(static_cast<int>(around_best.size()));
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_NE(std::set<int64_t>(planned->begin(), planned->end()), around_best);
}

// With crossover_top, the local slots also draw the fastest config's crossover children: it with
// one stage's knobs ("<stage>.<what>") taken from another of the crossover_top fastest.
TEST(ModelBasedSearch, Crossover_LocalSlotsAlsoMeasureTheFastestsChildren) {
  ConfigSpace space;  // Two stages of two knobs: 10^4 configs.
  for (const char* name : {"A.x", "A.y", "B.x", "B.y"}) {
    space.DefineOther(name, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  }
  auto cost = [&](int64_t index) {
    const std::vector<int64_t> c = space.Decompose(index);
    return 1.0 + std::abs(c[0] + c[1] - 9) + 0.5 * std::abs(c[2] - c[3]);
  };
  ModelSearchOptions o = FastModelOptions(5);
  o.epsilon = 0;
  o.local_share = 1;
  o.crossover_top = 4;
  auto s = MakeXgb(&space, 5, o);
  auto first = s->NextBatch(32);
  ASSERT_TRUE(first.ok()) << first.status();
  std::vector<MeasuredPoint> points;
  std::set<int64_t> visited(first->begin(), first->end());
  for (int64_t i : *first) points.push_back({i, cost(i)});
  ASSERT_TRUE(s->Update(points).ok());
  std::vector<MeasuredPoint> by_cost = points;
  std::stable_sort(
      by_cost.begin(), by_cost.end(),
      [](const MeasuredPoint& a, const MeasuredPoint& b) { return a.cost_s < b.cost_s; });
  const std::vector<int64_t> best = space.Decompose(by_cost[0].index);
  std::set<int64_t> expected, children;
  for (int k = 0; k < 4; ++k) {  // One-knob neighbors.
    for (int64_t v = 0; v < 10; ++v) {
      std::vector<int64_t> n = best;
      n[k] = v;
      if (!visited.count(space.Compose(n))) expected.insert(space.Compose(n));
    }
  }
  for (int d = 1; d < 4; ++d) {  // Children: stage A or B from one of the next 3 fastest.
    const std::vector<int64_t> donor = space.Decompose(by_cost[d].index);
    for (int stage = 0; stage < 2; ++stage) {
      std::vector<int64_t> child = best;
      child[2 * stage] = donor[2 * stage];
      child[2 * stage + 1] = donor[2 * stage + 1];
      const int64_t idx = space.Compose(child);
      if (!visited.count(idx)) {
        expected.insert(idx);
        children.insert(idx);
      }
    }
  }
  size_t two_knob_children = 0;  // Children that are no one-knob neighbor.
  for (int64_t c : children) {
    const std::vector<int64_t> v = space.Decompose(c);
    int differ = 0;
    for (int k = 0; k < 4; ++k) differ += v[k] != best[k];
    two_knob_children += differ == 2;
  }
  ASSERT_GT(two_knob_children, 0u);
  auto next = s->NextBatch(static_cast<int>(expected.size()));
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(std::set<int64_t>(next->begin(), next->end()), expected);
}

TEST(DiversityPick, NearCopies_PrefersNewKnobValues) {
  // Candidates 0 and 1 share every knob value; 2 is slightly worse but new everywhere.
  std::vector<float> scores = {1.0f, 0.99f, 0.95f};
  std::vector<std::vector<int64_t>> choices = {{1, 1, 1}, {1, 1, 1}, {2, 2, 2}};
  EXPECT_EQ(DiversityPick(scores, choices, 2, 1.0), (std::vector<int>{0, 2}));
  EXPECT_EQ(DiversityPick(scores, choices, 2, 0.0), (std::vector<int>{0, 1}));
  EXPECT_EQ(DiversityPick(scores, choices, 5, 1.0).size(), 3u);
  EXPECT_TRUE(DiversityPick({}, {}, 3, 1.0).empty());
}

TEST(ModelBasedSearch, DiversityFilterOn_StillNoDuplicates) {
  auto space = SmallSpace();
  ModelSearchOptions o = FastModelOptions(6);
  o.diversity_filter_ratio = 2.0;
  auto s = MakeXgb(space.get(), 6, o);
  CostLookup lookup = [&](int64_t i) -> std::optional<double> { return SmallCost(*space, i); };
  auto r = Replay(*s, lookup, 300, 32);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(std::set<int64_t>(r->indices.begin(), r->indices.end()).size(), 300u);
}

TEST(Replay, UnknownIndices_CountAsFailed_CurveIsRunningMin) {
  auto space = SmallSpace();
  auto s = *MakeGridSearch(space.get());
  std::map<int64_t, double> table = {{1, 3.0}, {2, 5.0}, {3, 2.0}};
  auto r = Replay(
      *s,
      [&](int64_t i) -> std::optional<double> {
        auto it = table.find(i);
        return it == table.end() ? std::nullopt : std::optional<double>(it->second);
      },
      5, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->indices, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(r->costs, (std::vector<double>{kInf, 3.0, 5.0, 2.0, kInf}));
  EXPECT_EQ(r->best_so_far, (std::vector<double>{kInf, 3.0, 3.0, 2.0, 2.0}));
  EXPECT_EQ(TrialsToReach(r->best_so_far, 3.0), 2);
  EXPECT_EQ(TrialsToReach(r->best_so_far, 2.5), 4);
  EXPECT_EQ(TrialsToReach(r->best_so_far, 1.0), -1);
  EXPECT_EQ(Replay(*s, nullptr, 5, 0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(Replay, SpaceSmallerThanTrials_StopsWhenExhausted) {
  ConfigSpace space;
  space.DefineOther("a", {1, 2, 3});
  auto s = *MakeRandomSearch(&space, 1);
  auto r = Replay(
      *s, [](int64_t i) -> std::optional<double> { return 1.0 + i; }, 10, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->indices.size(), 3u);
  EXPECT_EQ(r->best_so_far.back(), 1.0);
}

}  // namespace
}  // namespace tunefarm::tuner
