// One writer and four readers on the same file: no SQLITE_BUSY (Unavailable) ever surfaces,
// readers always see whole batches.
#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "db/test_records.h"
#include "db/tuning_log.h"
#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

using ::tunefarm::db::testing::DenseWorkload;
using ::tunefarm::db::testing::MakeRecord;

constexpr int kReaders = 4;
constexpr int kBatches = 40;
constexpr int kBatchSize = 250;
constexpr absl::Duration kMaxRun = absl::Seconds(20);

TEST(Concurrency, WriterAndFourReaders_NoBusyErrorsAndWholeBatches) {
  std::string path = absl::StrCat(::testing::TempDir(), "/concurrency.db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  auto writer_log = TuningLog::Open(path);
  ASSERT_TRUE(writer_log.ok()) << writer_log.status();
  // Readers use a second TuningLog, as a separate process (the CLI, the job service) would.
  auto reader_log = TuningLog::Open(path);
  ASSERT_TRUE(reader_log.ok()) << reader_log.status();
  Workload w = DenseWorkload(512, 512, 512);
  ASSERT_TRUE((*writer_log)->Insert({MakeRecord(w, 0, 1.0)}).ok());

  std::atomic<bool> done{false};
  absl::Mutex mu;
  std::vector<std::string> errors;
  std::atomic<int64_t> queries{0};
  auto note = [&](const absl::Status& s, absl::string_view what) {
    if (s.ok()) return;
    absl::MutexLock lock(&mu);
    errors.push_back(absl::StrCat(what, ": ", s.ToString()));
  };

  std::vector<std::thread> readers;
  for (int i = 0; i < kReaders; ++i) {
    readers.emplace_back([&, i] {
      BestQuery q;
      q.workload = w;
      q.target = "llvm -mcpu=znver4";
      q.k = 5;
      while (!done.load()) {
        auto best = (*reader_log)->BestK(q);
        note(best.status(), "best-k");
        auto count = (*reader_log)->CountRecords();
        note(count.status(), "count");
        // Batches are atomic: a reader sees 1 + a whole number of batches.
        if (count.ok() && (*count - 1) % kBatchSize != 0) {
          note(absl::InternalError(absl::StrCat("partial batch visible: ", *count)), "count");
        }
        if (i % 2 == 0) {
          TemplateHistoryQuery h;
          h.template_name = "dense";
          h.device_key = "cpu-znver4";
          h.limit = 100;
          note((*reader_log)->TemplateHistory(h).status(), "template history");
        }
        queries.fetch_add(1);
      }
    });
  }

  absl::Time deadline = absl::Now() + kMaxRun;
  int batches = 0;
  for (; batches < kBatches && absl::Now() < deadline; ++batches) {
    std::vector<Record> batch;
    for (int j = 0; j < kBatchSize; ++j) {
      batch.push_back(MakeRecord(w, batches * kBatchSize + j + 1, 0.5 + j * 1e-4));
    }
    note((*writer_log)->Insert(batch).status(), "insert");
  }
  done.store(true);
  for (std::thread& t : readers) t.join();

  for (const std::string& e : errors) ADD_FAILURE() << e;
  EXPECT_EQ(*(*reader_log)->CountRecords(), 1 + batches * kBatchSize);
  EXPECT_GT(queries.load(), kReaders);
  std::printf("concurrency: %d batches written while readers ran %lld queries\n", batches,
              static_cast<long long>(queries.load()));
}

}  // namespace
}  // namespace tunefarm::db
