#include "tuner/cost_model/xgboost_cost_model.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A monotone synthetic landscape: cost falls as every feature grows, with different weights.
double SyntheticCost(const std::vector<float>& x) {
  double c = 1.0;
  for (size_t i = 0; i < x.size(); ++i) c += (i + 1) * (1.0 - x[i]) * (1.0 - x[i]);
  return c * 1e-3;
}

std::vector<std::vector<float>> RandomRows(int n, int width, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<std::vector<float>> rows(n, std::vector<float>(width));
  for (auto& r : rows)
    for (float& v : r) v = u(rng);
  return rows;
}

// Fraction of pairs ordered the same way by score (higher = faster) and by cost.
double PairwiseAccuracy(const std::vector<float>& score, const std::vector<double>& cost) {
  int64_t agree = 0, total = 0;
  for (size_t i = 0; i < cost.size(); ++i) {
    for (size_t j = i + 1; j < cost.size(); ++j) {
      if (cost[i] == cost[j]) continue;
      ++total;
      if ((score[i] > score[j]) == (cost[i] < cost[j])) ++agree;
    }
  }
  return total == 0 ? 0.0 : static_cast<double>(agree) / total;
}

std::vector<double> Costs(const std::vector<std::vector<float>>& x) {
  std::vector<double> c;
  for (const auto& r : x) c.push_back(SyntheticCost(r));
  return c;
}

TEST(MakeXGBoostCostModel, UnknownObjective_InvalidArgument) {
  XGBoostOptions opts;
  opts.objective = "binary:logistic";
  EXPECT_EQ(MakeXGBoostCostModel(opts).status().code(), absl::StatusCode::kInvalidArgument);
  opts = XGBoostOptions();
  opts.num_boost_round = 0;
  EXPECT_EQ(MakeXGBoostCostModel(opts).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(XGBoostCostModel, Predict_BeforeFit_FailedPrecondition) {
  auto model = *MakeXGBoostCostModel(XGBoostOptions());
  EXPECT_FALSE(model->trained());
  EXPECT_EQ(model->Predict({{1.0f, 2.0f}}).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(XGBoostCostModel, Fit_BadShapes_InvalidArgument) {
  auto model = *MakeXGBoostCostModel(XGBoostOptions());
  EXPECT_EQ(model->Fit({}, {}, {}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->Fit({{1.0f}, {2.0f}}, {1.0}, {}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->Fit({{1.0f}, {2.0f}}, {1.0, 2.0}, {0}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->Fit({{1.0f}, {2.0f, 3.0f}}, {1.0, 2.0}, {}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(model->trained());
}

TEST(XGBoostCostModel, Predict_WrongWidth_InvalidArgument) {
  auto model = *MakeXGBoostCostModel(XGBoostOptions());
  ASSERT_TRUE(model->Fit({{1.0f, 0.0f}, {2.0f, 0.0f}}, {2.0, 1.0}, {}).ok());
  EXPECT_EQ(model->Predict({{1.0f}}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(NormalizedThroughput, PerGroupAndFailed_BestIsOneFailedIsZero) {
  std::vector<float> y =
      NormalizedThroughput({1.0, 2.0, kInf, 4.0, 8.0, -1.0, 0.0}, {0, 0, 0, 1, 1, 1, 1});
  ASSERT_EQ(y.size(), 7u);
  EXPECT_FLOAT_EQ(y[0], 1.0f);
  EXPECT_FLOAT_EQ(y[1], 0.5f);
  EXPECT_FLOAT_EQ(y[2], 0.0f);
  EXPECT_FLOAT_EQ(y[3], 1.0f);
  EXPECT_FLOAT_EQ(y[4], 0.5f);
  EXPECT_FLOAT_EQ(y[5], 0.0f);
  EXPECT_FLOAT_EQ(y[6], 0.0f);
}

void ExpectLearnsMonotone(const std::string& objective) {
  XGBoostOptions opts;
  opts.objective = objective;
  auto model = *MakeXGBoostCostModel(opts);
  auto train = RandomRows(400, 4, 1);
  auto test = RandomRows(200, 4, 2);
  ASSERT_TRUE(model->Fit(train, Costs(train), {}).ok());
  EXPECT_TRUE(model->trained());
  auto score = model->Predict(test);
  ASSERT_TRUE(score.ok()) << score.status();
  double acc = PairwiseAccuracy(*score, Costs(test));
  std::printf("%s pairwise accuracy on held-out rows: %.3f\n", objective.c_str(), acc);
  EXPECT_GT(acc, 0.8);
}

TEST(XGBoostCostModel, Fit_RankObjective_LearnsMonotoneFunction) {
  ExpectLearnsMonotone("rank:pairwise");
}

TEST(XGBoostCostModel, Fit_RegressionObjective_LearnsMonotoneFunction) {
  ExpectLearnsMonotone("reg:squarederror");
}

TEST(XGBoostCostModel, Fit_NonFiniteFeaturesAndFailedCosts_PredictsFinite) {
  auto model = *MakeXGBoostCostModel(XGBoostOptions());
  auto train = RandomRows(100, 3, 3);
  std::vector<double> cost = Costs(train);
  train[0][1] = std::numeric_limits<float>::quiet_NaN();
  train[1][2] = std::numeric_limits<float>::infinity();
  train[2][0] = -std::numeric_limits<float>::infinity();
  cost[3] = kInf;
  cost[4] = std::nan("");
  cost[5] = 0.0;
  cost[6] = -3.0;
  ASSERT_TRUE(model->Fit(train, cost, {}).ok());
  auto score = model->Predict({train[0], train[1], train[2], train[3]});
  ASSERT_TRUE(score.ok()) << score.status();
  for (float s : *score) EXPECT_TRUE(std::isfinite(s));
}

TEST(XGBoostCostModel, Fit_AllFailed_Trains) {
  auto model = *MakeXGBoostCostModel(XGBoostOptions());
  ASSERT_TRUE(model->Fit({{1.0f}, {2.0f}}, {kInf, kInf}, {}).ok());
  EXPECT_TRUE(model->Predict({{1.5f}}).ok());
}

// Transfer learning: many rows of workload A and a handful of workload B (a related landscape
// on another scale) rank B's held-out configs well.
TEST(XGBoostCostModel, Fit_TransferFromOtherGroup_RanksHeldOutBetterThanChance) {
  auto model = *MakeXGBoostCostModel(XGBoostOptions());
  auto a = RandomRows(400, 4, 4);
  auto b = RandomRows(8, 4, 5);
  auto held_out = RandomRows(200, 4, 6);
  std::vector<std::vector<float>> x = b;
  std::vector<double> cost;
  std::vector<int> group;
  for (const auto& r : b) {
    cost.push_back(5.0 * SyntheticCost(r) + 0.01);
    group.push_back(7);
  }
  for (const auto& r : a) {
    x.push_back(r);
    cost.push_back(SyntheticCost(r));
    group.push_back(3);
  }
  ASSERT_TRUE(model->Fit(x, cost, group).ok());
  std::vector<double> held_cost;
  for (const auto& r : held_out) held_cost.push_back(5.0 * SyntheticCost(r) + 0.01);
  auto score = model->Predict(held_out);
  ASSERT_TRUE(score.ok());
  double acc = PairwiseAccuracy(*score, held_cost);
  std::printf("transfer pairwise accuracy on B: %.3f\n", acc);
  EXPECT_GT(acc, 0.75);
}

TEST(XGBoostCostModel, Fit_1000Rows_ReportsTime) {
  auto x = RandomRows(1000, 100, 8);
  auto probe = RandomRows(128, 100, 9);
  for (const char* method : {"exact", "hist"}) {
    XGBoostOptions opts;
    opts.tree_method = method;
    auto model = *MakeXGBoostCostModel(opts);
    auto t0 = std::chrono::steady_clock::now();
    ASSERT_TRUE(model->Fit(x, Costs(x), {}).ok());
    auto t1 = std::chrono::steady_clock::now();
    ASSERT_TRUE(model->Predict(probe).ok());
    auto t2 = std::chrono::steady_clock::now();
    std::printf("%s: fit 1000x100, %d rounds: %.1f ms; predict 128 rows: %.3f ms\n", method,
                opts.num_boost_round, std::chrono::duration<double, std::milli>(t1 - t0).count(),
                std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
}

}  // namespace
}  // namespace tunefarm::tuner
