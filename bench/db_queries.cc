// Tuning-log benchmark: inserts 100k records in batched transactions, then times the hot
// queries. `bazel run -c opt //bench:db_queries -- [--quick]`; the last line is
// `RESULT records=100000 best_k_ms=... insert_per_s=...` (best_k_ms: median of k=5 queries).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "db/query_best.h"
#include "db/test_records.h"
#include "db/tuning_log.h"

ABSL_FLAG(bool, quick, false, "Fewer timed queries (the record count stays 100k).");
ABSL_FLAG(std::string, db, "", "Database file to create (default: a fresh file in $TMPDIR).");

ABSL_FLAG(bool, keep_db, false, "Keep the database file after the run.");

namespace tunefarm::bench {
namespace {

constexpr int64_t kRecords = 100000;
constexpr int kWorkloads = 100;
constexpr int kConfigs = 2000;
constexpr size_t kBatch = 1000;

struct Latency {
  double median_ms;
  double p99_ms;
};

template <typename Fn>
Latency Time(int n, Fn fn) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    absl::Time t0 = absl::Now();
    fn(i);
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - t0));
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)]};
}

void Check(const absl::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "db_queries: %s\n", s.ToString().c_str());
    std::exit(1);
  }
}

int Run() {
  bool quick = absl::GetFlag(FLAGS_quick);
  std::string path = absl::GetFlag(FLAGS_db);
  if (path.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    path = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/tunefarm_db_queries_", getpid(), ".db");
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  auto log = db::TuningLog::Open(path);
  Check(log.status());

  std::vector<db::Record> records =
      db::testing::SyntheticRecords(kRecords, kWorkloads, kConfigs, 7);
  absl::StatusOr<int64_t> job = (*log)->CreateJob(
      {0, "bench", "llvm -mcpu=znver4", "cpu-znver4", "bench", kRecords / 100, 0});
  Check(job.status());
  for (size_t i = 0; i < records.size(); i += 100) records[i].job_id = *job;
  absl::Time t0 = absl::Now();
  for (size_t i = 0; i < records.size(); i += kBatch) {
    size_t n = std::min(kBatch, records.size() - i);
    Check((*log)->Insert(absl::MakeConstSpan(records).subspan(i, n)).status());
  }
  double insert_s = absl::ToDoubleSeconds(absl::Now() - t0);
  double insert_per_s = static_cast<double>(kRecords) / insert_s;

  int n = quick ? 200 : 2000;
  auto best_query = [&](int i, bool device) {
    db::BestQuery q;
    q.workload = records[static_cast<size_t>(i) * 7919 % records.size()].workload;
    q.target = "llvm -mcpu=znver4";
    q.device_key = device ? "cpu-znver4" : "";
    q.k = 5;
    return q;
  };
  Latency best = Time(n, [&](int i) { Check((*log)->BestK(best_query(i, false)).status()); });
  Latency best_dev = Time(n, [&](int i) { Check((*log)->BestK(best_query(i, true)).status()); });
  Latency nearest = Time(n / 10, [&](int i) {
    db::BestQuery q = best_query(i, true);
    q.workload = db::testing::DenseWorkload(100 + i, 300, 700);
    q.nearest_on_miss = true;
    Check(db::QueryBest(**log, q).status());
  });
  Latency history = Time(n / 20, [&](int) {
    db::TemplateHistoryQuery q;
    q.template_name = "dense";
    q.device_key = "cpu-znver4";
    q.limit = 5000;
    Check((*log)->TemplateHistory(q).status());
  });
  Latency job_history = Time(n / 20, [&](int) { Check((*log)->JobHistory(*job).status()); });
  Latency stats = Time(quick ? 3 : 10, [&](int) { Check((*log)->Stats().status()); });

  std::printf("tuning log benchmark: %lld records, %d workloads, batches of %zu (%s)\n",
              static_cast<long long>(kRecords), kWorkloads, kBatch, path.c_str());
  std::printf("  %-34s %10s %10s\n", "query", "median ms", "p99 ms");
  auto row = [](const char* name, Latency l) {
    std::printf("  %-34s %10.3f %10.3f\n", name, l.median_ms, l.p99_ms);
  };
  row("best-k k=5 (any device)", best);
  row("best-k k=5 (one device key)", best_dev);
  row("best-k nearest shape on miss", nearest);
  row("template history (5000 records)", history);
  row("job history (1000 records)", job_history);
  row("stats per workload (full scan)", stats);
  std::printf("  insert: %.0f records/s in %.2f s\n", insert_per_s, insert_s);
  if (!absl::GetFlag(FLAGS_keep_db)) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  }
  std::printf("RESULT records=%lld best_k_ms=%.3f insert_per_s=%.0f\n",
              static_cast<long long>(kRecords), best.median_ms, insert_per_s);
  return 0;
}

}  // namespace
}  // namespace tunefarm::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return tunefarm::bench::Run();
}
