// The job service's store: rows survive reopening, upserts replace, order is submission order,
// and it shares the file with a tuning log.
#include "db/job_store.h"

#include "db/tuning_log.h"
#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

TEST(JobStore, SaveReopenLoad_InSubmissionOrderWithBytesIntact) {
  const std::string path = ::testing::TempDir() + "/jobs.db";
  auto log = TuningLog::Open(path);  // the same file as the records
  ASSERT_TRUE(log.ok()) << log.status();
  const std::string bytes("\x08\x00\x12\x03job\xff", 8);  // protobuf-like, with a NUL
  {
    auto store = JobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Save({"job-2", 2, "second", false}).ok());
    ASSERT_TRUE((*store)->Save({"job-1", 1, bytes, false}).ok());
    ASSERT_TRUE((*store)->Save({"job-2", 2, "second, done", true, 123.5}).ok());  // replaces
    ASSERT_TRUE((*store)->Save({"job-3", 3, "third", false}).ok());
    ASSERT_TRUE((*store)->Forget("job-3").ok());
    ASSERT_TRUE((*store)->Forget("job-9").ok());  // absent: no-op
    EXPECT_EQ((*store)->Save({"", 4, "x", false}).code(), absl::StatusCode::kInvalidArgument);
  }
  auto store = JobStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto jobs = (*store)->Load();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].job_id, "job-1");
  EXPECT_EQ((*jobs)[0].status, bytes);
  EXPECT_FALSE((*jobs)[0].terminal);
  EXPECT_EQ((*jobs)[1].job_id, "job-2");
  EXPECT_EQ((*jobs)[1].status, "second, done");
  EXPECT_TRUE((*jobs)[1].terminal);
  EXPECT_EQ((*jobs)[1].updated_at, 123.5);  // the caller's clock
  EXPECT_EQ(*(*log)->CountRecords(), 0);
}

}  // namespace
}  // namespace tunefarm::db
