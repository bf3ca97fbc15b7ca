// QueryBest / BestPerWorkload (RPC and export queries) and the tuning curve.
#include "db/query_best.h"

#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "db/test_records.h"
#include "db/tuning_curve.h"
#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

using ::tunefarm::db::testing::DenseWorkload;
using ::tunefarm::db::testing::MakeErrorRecord;
using ::tunefarm::db::testing::MakeRecord;

std::unique_ptr<TuningLog> OpenFresh(absl::string_view name) {
  std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return *TuningLog::Open(path);
}

TEST(QueryBest, SpacedArgs_CanonicalizedAndFound) {
  auto log = OpenFresh("qb.db");
  ASSERT_TRUE(log->Insert({MakeRecord(DenseWorkload(64, 64, 64), 3, 0.01)}).ok());
  BestQuery q;
  q.workload.template_name = "dense";
  q.workload.args = "[64, 64, 64, \"float32\"]";
  q.target = "llvm -mcpu=znver4";
  auto best = QueryBest(*log, q);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ((*best)[0].record.config_index, 3);
}

TEST(QueryBest, MissWithNearest_ReturnsNearestShapeFlagged) {
  auto log = OpenFresh("qb_near.db");
  ASSERT_TRUE(log->Insert({MakeRecord(DenseWorkload(512, 512, 512), 1, 0.01),
                           MakeRecord(DenseWorkload(2048, 2048, 2048), 2, 0.5),
                           MakeRecord(DenseWorkload(1024, 1024, 512), 3, 0.05)})
                  .ok());
  BestQuery q;
  q.workload = DenseWorkload(1024, 1024, 1024);
  q.target = "llvm -mcpu=znver4";
  q.device_key = "cpu-znver4";
  EXPECT_EQ(QueryBest(*log, q).status().code(), absl::StatusCode::kNotFound);
  q.nearest_on_miss = true;
  auto best = QueryBest(*log, q);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 1u);
  EXPECT_FALSE((*best)[0].exact);
  EXPECT_EQ((*best)[0].record.config_index, 3);
  EXPECT_NEAR((*best)[0].distance, std::log(2.0), 1e-12);
  // Another device key has nothing: still NotFound, and the message says so.
  q.device_key = "gpu-h100";
  auto none = QueryBest(*log, q);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(none.status().message(), "nor a comparable shape"));
  // An exact hit stays exact.
  q.device_key = "";
  q.workload = DenseWorkload(512, 512, 512);
  best = QueryBest(*log, q);
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_TRUE((*best)[0].exact);
  EXPECT_EQ((*best)[0].distance, 0);
}

TEST(QueryBest, KOutOfRange_InvalidArgument) {
  auto log = OpenFresh("qb_k.db");
  BestQuery q;
  q.workload = DenseWorkload(1, 1, 1);
  q.target = "llvm";
  q.k = kMaxBestK + 1;
  EXPECT_EQ(QueryBest(*log, q).status().code(), absl::StatusCode::kInvalidArgument);
  q.k = 1;
  q.workload.args = "not json";
  EXPECT_EQ(QueryBest(*log, q).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BestPerWorkload, OneMissing_NotFoundNamingIt) {
  auto log = OpenFresh("bpw.db");
  Workload a = DenseWorkload(64, 64, 64), b = DenseWorkload(128, 128, 128);
  ASSERT_TRUE(log->Insert({MakeRecord(a, 1, 0.02), MakeRecord(a, 2, 0.01)}).ok());
  auto best = BestPerWorkload(*log, {a}, "llvm -mcpu=znver4", "cpu-znver4");
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ((*best)[0].record.config_index, 2);
  auto missing = BestPerWorkload(*log, {a, b}, "llvm -mcpu=znver4", "");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(missing.status().message(), b.args));
  auto nearest = BestPerWorkload(*log, {a, b}, "llvm -mcpu=znver4", "", /*allow_nearest=*/true);
  ASSERT_TRUE(nearest.ok());
  EXPECT_FALSE((*nearest)[1].exact);
  EXPECT_EQ(BestPerWorkload(*log, {}, "llvm", "").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BestSoFarCurve, MixedTrials_MonotoneBest) {
  Workload w = DenseWorkload(100, 100, 100);  // 2e6 flop
  std::vector<Record> history = {MakeErrorRecord(w, 0, ErrorClass::kBuildError),
                                 MakeRecord(w, 1, 2e-3), MakeRecord(w, 2, 4e-3),
                                 MakeRecord(w, 3, 1e-3)};
  std::vector<CurvePoint> curve = BestSoFarCurve(history);
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_EQ(curve[0].best_gflops, 0);
  EXPECT_EQ(curve[0].best_index, -1);
  EXPECT_NEAR(curve[1].best_gflops, 1.0, 1e-9);
  EXPECT_NEAR(curve[2].best_gflops, 1.0, 1e-9);
  EXPECT_NEAR(curve[3].best_gflops, 2.0, 1e-9);
  EXPECT_EQ(curve[3].best_index, 3);
}

}  // namespace
}  // namespace tunefarm::db
