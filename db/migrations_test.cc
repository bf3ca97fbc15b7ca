// Schema migrations: a version-1 log with data opens as the current version, data intact.
#include "db/migrations.h"

#include <sqlite3.h>

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "db/sqlite.h"
#include "db/tuning_log.h"
#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

std::string TempPath(absl::string_view name) {
  std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  std::remove(path.c_str());
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  return path;
}

TEST(MigrateSchema, EmptyDatabase_ReachesCurrentVersion) {
  auto conn = Connection::Open(TempPath("empty.db"), {});
  ASSERT_TRUE(conn.ok()) << conn.status();
  EXPECT_EQ(*SchemaVersion(**conn), 0);
  ASSERT_TRUE(MigrateSchema(**conn).ok());
  EXPECT_EQ(*SchemaVersion(**conn), kCurrentSchemaVersion);
  // Running again is a no-op.
  ASSERT_TRUE(MigrateSchema(**conn).ok());
  EXPECT_EQ(*SchemaVersion(**conn), kCurrentSchemaVersion);
}

TEST(MigrateSchema, Version1WithRecords_OpensAsCurrentWithDataIntact) {
  std::string path = TempPath("v1.db");
  {
    auto conn = Connection::Open(path, {});
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(MigrateSchema(**conn, 1).ok());
    EXPECT_EQ(*SchemaVersion(**conn), 1);
    ASSERT_TRUE((*conn)
                    ->Exec("INSERT INTO workloads(id, hash, template, args, flop) VALUES "
                           "(1, 42, 'dense', '[64,64,64,\"float32\"]', 524288);"
                           "INSERT INTO targets(id, target) VALUES (1, 'llvm');"
                           "INSERT INTO records(workload_id, target_id, device_key, job_id, "
                           "config_index, config_json, costs, mean_cost, error_class, timestamp)"
                           " VALUES (1, 1, 'cpu-old', NULL, 7, '{}', '[0.001]', 0.001, 0, 1.5),"
                           " (1, 1, 'cpu-old', NULL, 8, '{}', '[]', NULL, 2, 2.5);")
                    .ok());
  }
  auto log = TuningLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  {
    auto conn = Connection::Open(path, {});
    EXPECT_EQ(*SchemaVersion(**conn), kCurrentSchemaVersion);
  }
  EXPECT_EQ(*(*log)->CountRecords(), 2);
  // The old rows gained a device row with an empty fingerprint and still answer queries.
  RecordFilter filter;
  filter.device_key = "cpu-old";
  std::vector<Record> records;
  ASSERT_TRUE((*log)
                  ->ForEachRecord(filter,
                                  [&](const Record& r) {
                                    records.push_back(r);
                                    return absl::OkStatus();
                                  })
                  .ok());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].config_index, 7);
  EXPECT_EQ(records[1].error, ErrorClass::kBuildError);
  EXPECT_TRUE((*log)->CheckIntegrity().ok());
}

// Schema 4 gives out-of-memory its own class: the runtime errors that the sandbox's message
// marks as out-of-memory move to it, every other row keeps its class.
TEST(MigrateSchema, Version3RuntimeErrorsOfOutOfMemory_Reclassified) {
  std::string path = TempPath("v3.db");
  {
    auto conn = Connection::Open(path, {});
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(MigrateSchema(**conn, 3).ok());
    ASSERT_TRUE(
        (*conn)
            ->Exec("INSERT INTO workloads(id, hash, template, args, flop) VALUES "
                   "(1, 42, 'dense', '[64,64,64,\"float32\"]', 524288);"
                   "INSERT INTO targets(id, target) VALUES (1, 'llvm');"
                   "INSERT INTO devices(id, key, fingerprint) VALUES (1, 'k', '');"
                   "INSERT INTO records(workload_id, target_id, device_id, device_key, job_id, "
                   "config_index, config_json, costs, mean_cost, error_class, error_message, "
                   "timestamp) VALUES "
                   "(1, 1, 1, 'k', NULL, 1, '{}', '[]', NULL, 4, 'kernel ran out of memory (an "
                   "allocation of 4096 bytes failed): exit 3', 1.0),"
                   "(1, 1, 1, 'k', NULL, 2, '{}', '[]', NULL, 4, 'kernel crashed: SIGSEGV', 2.0),"
                   "(1, 1, 1, 'k', NULL, 3, '{}', '[]', NULL, 5, 'kernel ran out of memory', 3.0);")
            .ok());
  }
  auto log = TuningLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  RecordFilter filter;
  filter.device_key = "k";
  std::map<int64_t, ErrorClass> errors;
  ASSERT_TRUE((*log)
                  ->ForEachRecord(filter,
                                  [&](const Record& r) {
                                    errors[r.config_index] = r.error;
                                    return absl::OkStatus();
                                  })
                  .ok());
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[1], ErrorClass::kOutOfMemory);
  EXPECT_EQ(errors[2], ErrorClass::kRuntimeError);
  EXPECT_EQ(errors[3], ErrorClass::kWrongAnswer);  // only runtime errors move
}

// Version 8 stores each valid record's median repeat, and best-k ranks a config by its
// re-measurements: a version-7 log answers by the medians of its old rows' costs.
TEST(MigrateSchema, Version7Records_GainTheirMedians_BestKRanksByReMeasurements) {
  std::string path = TempPath("v7.db");
  {
    auto conn = Connection::Open(path, {});
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(MigrateSchema(**conn, 7).ok());
    const Workload w = *Workload::Make("dense", "[64,64,64,\"float32\"]", 1e9);
    // Config 1: a lucky first run (mean 0.9), then runs whose median is 1.2 (means 1.5).
    // Config 2: 1.0 then 1.1 (means equal to medians). A corrupt row's costs are left alone.
    ASSERT_TRUE(
        (*conn)
            ->Exec(("INSERT INTO workloads(id, hash, template, args, flop) VALUES "
                    "(1, " +
                    std::to_string(static_cast<int64_t>(w.Hash())) +
                    ", 'dense', '[64,64,64,\"float32\"]', 1e9);"
                    "INSERT INTO targets(id, target) VALUES (1, 'llvm');"
                    "INSERT INTO records(workload_id, target_id, device_key, job_id, "
                    "config_index, config_json, costs, mean_cost, error_class, timestamp) VALUES "
                    "(1, 1, 'k', NULL, 1, '{}', '[0.9]', 0.9, 0, 1),"
                    "(1, 1, 'k', NULL, 2, '{}', '[1.0]', 1.0, 0, 2),"
                    "(1, 1, 'k', NULL, 1, '{}', '[1.2,3.1,1.1,1.2]', 1.65, 0, 3),"
                    "(1, 1, 'k', NULL, 2, '{}', '[1.1,1.1]', 1.1, 0, 4),"
                    "(1, 1, 'k', NULL, 3, '{}', 'not json', 5.0, 0, 5);")
                       .c_str())
            .ok());
  }
  auto log = TuningLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status();
  BestQuery q;
  q.workload = *Workload::Make("dense", "[64,64,64,\"float32\"]", 1e9);
  q.target = "llvm";
  q.k = 2;
  auto best = (*log)->BestK(q);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 2u);
  EXPECT_EQ((*best)[0].record.config_index, 2);
  EXPECT_DOUBLE_EQ((*best)[0].cost_s, 1.1);
  EXPECT_TRUE((*best)[0].confirmed);
  EXPECT_EQ((*best)[1].record.config_index, 1);
  EXPECT_DOUBLE_EQ((*best)[1].cost_s, 1.2);  // the median of 1.2, 3.1, 1.1, 1.2
  EXPECT_EQ((*best)[1].runs, 1);
  // The corrupt row kept its stored mean and ranks third by it; answering it is DataLoss.
  q.k = 3;
  EXPECT_EQ((*log)->BestK(q).status().code(), absl::StatusCode::kDataLoss);
}

// A reading command (best, compile) after an upgrade: the log of the older version is migrated
// on open and then read; a read-only open of a newer log's file is refused.
TEST(TuningLogOpen, ReadOnlyOfOlderSchema_MigratedThenRead) {
  std::string path = TempPath("v6.db");
  {
    auto conn = Connection::Open(path, {});
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(MigrateSchema(**conn, 6).ok());
  }
  TuningLogOptions read_only;
  read_only.read_only = true;
  auto log = TuningLog::Open(path, read_only);
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(*(*log)->CountRecords(), 0);
  auto conn = Connection::Open(path, {});
  EXPECT_EQ(*SchemaVersion(**conn), kCurrentSchemaVersion);
  ASSERT_TRUE((*conn)->Exec("INSERT INTO schema_version(version) VALUES (99)").ok());
  auto newer = TuningLog::Open(path, read_only);
  EXPECT_EQ(newer.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(newer.status().message().find("newer tunefarm"), std::string::npos) << newer.status();
}

TEST(MigrateSchema, NewerDatabase_FailedPrecondition) {
  std::string path = TempPath("newer.db");
  auto conn = Connection::Open(path, {});
  ASSERT_TRUE(MigrateSchema(**conn).ok());
  ASSERT_TRUE((*conn)->Exec("INSERT INTO schema_version(version) VALUES (999)").ok());
  EXPECT_EQ(MigrateSchema(**conn).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(TuningLog::Open(path).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(MigrateSchema, BadTargetVersion_InvalidArgument) {
  auto conn = Connection::Open(TempPath("bad.db"), {});
  EXPECT_EQ(MigrateSchema(**conn, 0).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MigrateSchema(**conn, kCurrentSchemaVersion + 1).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TuningLogOpen, NotADatabase_DataLoss) {
  std::string path = TempPath("garbage.db");
  FILE* f = std::fopen(path.c_str(), "w");
  std::fputs("this is not a sqlite database, just some text that is long enough.........", f);
  std::fclose(f);
  EXPECT_EQ(TuningLog::Open(path).status().code(), absl::StatusCode::kDataLoss);
}

TEST(TuningLogOpen, MissingDirectory_NotFound) {
  EXPECT_EQ(TuningLog::Open("/nonexistent-dir/x/tuning.db").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tunefarm::db
