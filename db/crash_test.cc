// A writer process SIGKILLed 20 times at random points leaves an intact tuning log holding
// every record it reported as committed, and never a partial batch.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "db/tuning_log.h"
#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

constexpr int kRuns = 20;
constexpr int kBatchSize = 200;
constexpr char kWriter[] = "db/crash_writer";

// Runs the writer for `run_for`, SIGKILLs it and returns everything it printed.
std::string RunAndKill(const std::string& db_path, absl::Duration run_for) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::string batch = std::to_string(kBatchSize);
    execl(kWriter, kWriter, db_path.c_str(), batch.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  // Drain the pipe while the writer runs so it never blocks on a full pipe.
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  std::string out;
  char buf[4096];
  absl::Time deadline = absl::Now() + run_for;
  while (absl::Now() < deadline) {
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n > 0) out.append(buf, static_cast<size_t>(n));
    absl::SleepFor(absl::Milliseconds(1));
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status)) << "writer exited on its own with status " << status;
  fcntl(fds[0], F_SETFL, 0);
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  return out;
}

TEST(CrashTest, WriterKilledRepeatedly_IntactWithEveryCommittedRecord) {
  std::string path = absl::StrCat(::testing::TempDir(), "/crash.db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  std::mt19937 rng(20240607);
  std::uniform_int_distribution<int> delay_ms(20, 250);
  std::vector<std::pair<int64_t, int64_t>> committed;
  for (int run = 0; run < kRuns; ++run) {
    std::string out = RunAndKill(path, absl::Milliseconds(delay_ms(rng)));
    for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
      std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
      int64_t first = 0, last = 0;
      ASSERT_EQ(parts.size(), 3u) << line;
      ASSERT_TRUE(absl::SimpleAtoi(parts[1], &first) && absl::SimpleAtoi(parts[2], &last));
      committed.emplace_back(first, last);
    }
  }
  ASSERT_FALSE(committed.empty()) << "the writer never committed; is it too slow to start?";

  auto log = TuningLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_TRUE((*log)->CheckIntegrity().ok()) << (*log)->CheckIntegrity();
  // Every reported batch is present in full.
  std::vector<bool> present;
  ASSERT_TRUE((*log)
                  ->ForEachRecord({},
                                  [&](const Record& r) {
                                    if (r.id >= static_cast<int64_t>(present.size())) {
                                      present.resize(r.id + 1, false);
                                    }
                                    present[r.id] = true;
                                    return absl::OkStatus();
                                  })
                  .ok());
  int64_t expected = 0;
  for (auto [first, last] : committed) {
    expected += last - first + 1;
    for (int64_t id = first; id <= last; ++id) {
      ASSERT_TRUE(id < static_cast<int64_t>(present.size()) && present[id])
          << "committed record " << id << " is missing";
    }
  }
  // No partial batch: a batch killed mid-transaction left nothing behind. (A batch may have
  // committed just before the kill without being reported, hence >= and the modulus.)
  int64_t count = *(*log)->CountRecords();
  EXPECT_GE(count, expected);
  EXPECT_EQ(count % kBatchSize, 0) << count << " records is not a whole number of batches";
  std::printf("crash test: %d kills, %zu reported batches, %lld records\n", kRuns, committed.size(),
              static_cast<long long>(count));
}

}  // namespace
}  // namespace tunefarm::db
