// Links XGBoost's C API: trains a tiny rank:pairwise booster and checks it orders two points.
#include <xgboost/c_api.h>

#include <vector>

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

TEST(XgboostSmoke, RankPairwise_LearnsOrder_HigherScoreForBetter) {
  // Label = relevance; one feature that equals the label.
  std::vector<float> x;
  std::vector<float> y;
  for (int i = 0; i < 64; ++i) {
    x.push_back(static_cast<float>(i % 8));
    y.push_back(static_cast<float>(i % 8));
  }
  DMatrixHandle dtrain = nullptr;
  ASSERT_EQ(XGDMatrixCreateFromMat(x.data(), 64, 1, -1.0f, &dtrain), 0) << XGBGetLastError();
  ASSERT_EQ(XGDMatrixSetFloatInfo(dtrain, "label", y.data(), y.size()), 0);
  unsigned group = 64;
  ASSERT_EQ(XGDMatrixSetUIntInfo(dtrain, "group", &group, 1), 0);

  BoosterHandle booster = nullptr;
  ASSERT_EQ(XGBoosterCreate(&dtrain, 1, &booster), 0) << XGBGetLastError();
  ASSERT_EQ(XGBoosterSetParam(booster, "objective", "rank:pairwise"), 0);
  ASSERT_EQ(XGBoosterSetParam(booster, "nthread", "1"), 0);
  for (int it = 0; it < 10; ++it) {
    ASSERT_EQ(XGBoosterUpdateOneIter(booster, it, dtrain), 0) << XGBGetLastError();
  }

  float probe[2] = {1.0f, 6.0f};
  DMatrixHandle dtest = nullptr;
  ASSERT_EQ(XGDMatrixCreateFromMat(probe, 2, 1, -1.0f, &dtest), 0);
  bst_ulong n = 0;
  const float* out = nullptr;
  ASSERT_EQ(XGBoosterPredict(booster, dtest, 0, 0, 0, &n, &out), 0) << XGBGetLastError();
  ASSERT_EQ(n, 2u);
  EXPECT_LT(out[0], out[1]);

  XGDMatrixFree(dtest);
  XGDMatrixFree(dtrain);
  XGBoosterFree(booster);
}

}  // namespace
}  // namespace tunefarm
