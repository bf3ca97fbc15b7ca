// Fuzz target: decoding tuning-log rows. A database file can be written by anyone who can
// write the file; its rows must be decoded into records or refused with a status. The input
// fills one records row (costs, config and workload args text, error class, cost columns) of a
// real log of schema 7, which TuningLog::Open then migrates (migration 8 computes each row's
// median from its costs text) and ForEachRecord, BestK and JobHistory read back.
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "db/migrations.h"
#include "db/query_best.h"
#include "db/sqlite.h"
#include "db/tuning_log.h"

namespace {

// Splits the input into fields at '\x1f'.
std::string Field(const uint8_t* data, size_t size, int index) {
  int i = 0;
  size_t start = 0;
  for (size_t p = 0; p <= size; ++p) {
    if (p == size || data[p] == 0x1f) {
      if (i == index) return std::string(reinterpret_cast<const char*>(data) + start, p - start);
      ++i;
      start = p + 1;
    }
  }
  return "";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = absl::StrCat("/tmp/tunefarm-log-row-fuzz-", getpid(), ".db");
  unlink(path.c_str());
  unlink((path + "-wal").c_str());
  unlink((path + "-shm").c_str());
  {
    auto conn = tunefarm::db::Connection::Open(path, {});
    if (!conn.ok() || !tunefarm::db::MigrateSchema(**conn, 7).ok()) std::abort();
  }
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) std::abort();
  const std::string args = Field(data, size, 0);
  const std::string config = Field(data, size, 1);
  const std::string costs = Field(data, size, 2);
  const std::string numbers = Field(data, size, 3);
  int64_t error_class = 0;
  double mean = 0, flop = 0;
  std::memcpy(&error_class, numbers.data(), std::min(numbers.size(), sizeof(error_class)));
  if (numbers.size() >= 16) std::memcpy(&mean, numbers.data() + 8, 8);
  if (numbers.size() >= 24) std::memcpy(&flop, numbers.data() + 16, 8);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db,
                     "INSERT INTO workloads(id, hash, template, args, flop) VALUES (1, 7, "
                     "'dense', ?1, ?2)",
                     -1, &s, nullptr);
  sqlite3_bind_text(s, 1, args.data(), static_cast<int>(args.size()), SQLITE_TRANSIENT);
  sqlite3_bind_double(s, 2, flop);
  sqlite3_step(s);
  sqlite3_finalize(s);
  sqlite3_exec(db, "INSERT INTO targets(id, target) VALUES (1, 'llvm')", nullptr, nullptr, nullptr);
  sqlite3_prepare_v2(db,
                     "INSERT INTO records(workload_id, target_id, device_key, job_id, "
                     "config_index, config_json, costs, mean_cost, error_class, timestamp) "
                     "VALUES (1, 1, 'cpu', 1, 3, ?1, ?2, ?3, ?4, 0)",
                     -1, &s, nullptr);
  sqlite3_bind_text(s, 1, config.data(), static_cast<int>(config.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, costs.data(), static_cast<int>(costs.size()), SQLITE_TRANSIENT);
  sqlite3_bind_double(s, 3, mean);
  sqlite3_bind_int64(s, 4, error_class);
  sqlite3_step(s);
  sqlite3_finalize(s);
  sqlite3_close(db);

  auto log = tunefarm::db::TuningLog::Open(path);
  if (!log.ok()) return 0;
  (void)(*log)->ForEachRecord({}, [](const tunefarm::db::Record& r) {
    (void)r.Gflops();
    return absl::OkStatus();
  });
  tunefarm::db::BestQuery query;
  query.workload.template_name = "dense";
  query.workload.args = args;
  query.target = "llvm";
  query.nearest_on_miss = true;
  (void)tunefarm::db::QueryBest(**log, query);
  (void)(*log)->JobHistory(1);
  (void)(*log)->Stats();
  return 0;
}
