// 100k records: best-k answers are correct (k distinct configs, best first) at the size of a
// long-lived farm's log. Its latency is printed, never asserted (a test must not depend on the
// machine's speed); bench:db_queries measures it.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "db/test_records.h"
#include "db/tuning_log.h"
#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

constexpr int64_t kRecords = 100000;
constexpr int kWorkloads = 100;
constexpr int kQueries = 200;

TEST(BestKPerf, HundredThousandRecords_BestKUnderTenMs) {
  std::string path = absl::StrCat(::testing::TempDir(), "/perf.db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  auto log = TuningLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  std::vector<Record> records = testing::SyntheticRecords(kRecords, kWorkloads, 2000, 7);
  absl::Time start = absl::Now();
  constexpr size_t kBatch = 5000;
  for (size_t i = 0; i < records.size(); i += kBatch) {
    size_t n = std::min(kBatch, records.size() - i);
    ASSERT_TRUE((*log)->Insert(absl::MakeConstSpan(records).subspan(i, n)).ok());
  }
  double insert_s = absl::ToDoubleSeconds(absl::Now() - start);

  std::vector<double> ms;
  for (int q = 0; q < kQueries; ++q) {
    BestQuery query;
    query.workload = records[q * 37 % records.size()].workload;
    query.target = "llvm -mcpu=znver4";
    query.device_key = q % 2 ? "cpu-znver4" : "";
    query.k = 5;
    absl::Time t0 = absl::Now();
    auto best = (*log)->BestK(query);
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - t0));
    ASSERT_TRUE(best.ok()) << best.status();
    ASSERT_EQ(best->size(), 5u);
    for (size_t i = 1; i < best->size(); ++i) {
      EXPECT_LE((*best)[i - 1].rank_s, (*best)[i].rank_s);
    }
  }
  std::sort(ms.begin(), ms.end());
  double median = ms[ms.size() / 2], p99 = ms[ms.size() * 99 / 100];
  std::printf("best-k over %lld records: median %.3f ms, p99 %.3f ms (insert %.0f records/s)\n",
              static_cast<long long>(kRecords), median, p99, kRecords / insert_s);
}

}  // namespace
}  // namespace tunefarm::db
