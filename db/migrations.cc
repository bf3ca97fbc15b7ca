#include "db/migrations.h"

#include <iterator>

#include "absl/strings/str_cat.h"

namespace tunefarm::db {
namespace {

struct Migration {
  int version;
  const char* sql;
};

// Version 1: workloads, targets, jobs, records and the best-k index.
constexpr char kSchemaV1[] = R"sql(
CREATE TABLE workloads(
  id INTEGER PRIMARY KEY,
  hash INTEGER NOT NULL UNIQUE,      -- FNV-1a 64 of "template|args", as signed int64
  template TEXT NOT NULL,
  args TEXT NOT NULL,                -- canonical JSON array
  flop REAL NOT NULL DEFAULT 0
);
CREATE INDEX workloads_template ON workloads(template);
CREATE TABLE targets(
  id INTEGER PRIMARY KEY,
  target TEXT NOT NULL UNIQUE
);
CREATE TABLE jobs(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL DEFAULT '',
  created_at REAL NOT NULL DEFAULT 0
);
CREATE TABLE records(
  id INTEGER PRIMARY KEY,
  workload_id INTEGER NOT NULL REFERENCES workloads(id),
  target_id INTEGER NOT NULL REFERENCES targets(id),
  device_key TEXT NOT NULL,
  job_id INTEGER,                    -- NULL: not from a tuning job (imported, ad hoc)
  config_index INTEGER NOT NULL,
  config_json TEXT NOT NULL,
  costs TEXT NOT NULL,               -- JSON array of per-repeat seconds
  mean_cost REAL,                    -- NULL for invalid records: they never win best-k
  error_class INTEGER NOT NULL,
  error_message TEXT NOT NULL DEFAULT '',
  tuner_version TEXT NOT NULL DEFAULT '',
  timestamp REAL NOT NULL
);
CREATE INDEX records_best ON records(workload_id, target_id, mean_cost)
  WHERE mean_cost IS NOT NULL;
)sql";

// Version 2: device fingerprints (results from another toolchain are not silently mixed),
// richer jobs, and indexes for per-device best-k, job history and transfer learning.
// Records written before version 2 get a device row with an empty fingerprint.
constexpr char kSchemaV2[] = R"sql(
CREATE TABLE devices(
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,         -- DeviceFingerprint::CanonicalString()
  cpu_model TEXT NOT NULL DEFAULT '',
  gpu_model TEXT NOT NULL DEFAULT '',
  cores INTEGER NOT NULL DEFAULT 0,
  driver_version TEXT NOT NULL DEFAULT '',
  compiler_version TEXT NOT NULL DEFAULT '',
  UNIQUE(key, fingerprint)
);
ALTER TABLE records ADD COLUMN device_id INTEGER REFERENCES devices(id);
INSERT INTO devices(key, fingerprint)
  SELECT DISTINCT device_key, 'cpu=;gpu=;cores=0;driver=;compiler=' FROM records;
UPDATE records SET device_id = (SELECT id FROM devices WHERE devices.key = records.device_key);
ALTER TABLE jobs ADD COLUMN target TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN device_key TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN tuner_version TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN trials INTEGER NOT NULL DEFAULT 0;
CREATE INDEX records_best_device ON records(workload_id, target_id, device_key, mean_cost)
  WHERE mean_cost IS NOT NULL;
CREATE INDEX records_job ON records(job_id, id) WHERE job_id IS NOT NULL;
-- Rows of one device key in id order (index entries end with the rowid): newest-first
-- transfer-learning history without a sort.
CREATE INDEX records_device ON records(device_key);
)sql";

// Version 3: exactly-once recording and the job service's own state. A record may carry the
// farm's request id; no two records share one, so a result delivered twice is stored once.
// service_jobs holds the job service's jobs (db/job_store.h), so a restarted service resumes
// them. Existing records get no request id.
constexpr char kSchemaV3[] = R"sql(
ALTER TABLE records ADD COLUMN request_id TEXT;
CREATE UNIQUE INDEX records_request ON records(request_id) WHERE request_id IS NOT NULL;
CREATE TABLE service_jobs(
  job_id TEXT PRIMARY KEY,           -- the job service's id, e.g. "job-7"
  seq INTEGER NOT NULL,              -- submission order
  status BLOB NOT NULL,              -- tunefarm.v1.JobStatus (protobuf), the spec included
  terminal INTEGER NOT NULL,         -- 1 once the job succeeded, failed or was cancelled
  updated_at REAL NOT NULL
);
)sql";

// Version 4: out-of-memory is its own error class (10). Before, workers' OUT_OF_MEMORY results
// were stored as runtime errors (4); their messages, which the sandbox writes, say which.
constexpr char kSchemaV4[] = R"sql(
UPDATE records SET error_class = 10
  WHERE error_class = 4 AND error_message LIKE 'kernel ran out of memory%';
)sql";

// Version 5: the texts of tensor-expression programs, so a program's records (template name
// "expr:NAME:HASH") can be rebuilt for best, export, resume and transfer learning.
constexpr char kSchemaV5[] = R"sql(
CREATE TABLE programs(
  hash TEXT PRIMARY KEY,             -- 16 hex digits of FNV-1a 64 of the canonical text
  name TEXT NOT NULL,
  text TEXT NOT NULL,                -- the canonical text
  created_at REAL NOT NULL
);
)sql";

// Version 6: devices that ran under emulation (an aarch64 board emulated by qemu-user on an
// x86-64 machine) are marked, so their timings, which say little about the real board, never
// rank against real ones (TuningLog::BestK). Existing devices were real.
constexpr char kSchemaV6[] = R"sql(
ALTER TABLE devices ADD COLUMN emulated INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 7: records timed cold (every run after a cache flush, TVM's enable_cpu_cache_flush)
// are marked: their times include streaming the weights, which compile does not add again.
// Existing records were timed warm.
constexpr char kSchemaV7[] = R"sql(
ALTER TABLE records ADD COLUMN cold_cache INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 8: best-k ranks a config by all its measurements in log order, failed ones included,
// each valid one by the median of its repeats (config_rank.h): that median is stored (existing
// rows get it from their costs), and an index keeps a workload's records on a target together by
// config in log order (it also covers Stats' reads).
constexpr char kSchemaV8[] = R"sql(
ALTER TABLE records ADD COLUMN median_cost REAL;
UPDATE records SET median_cost = (
  SELECT AVG(j1.value) FROM json_each(records.costs) j1
  WHERE (SELECT COUNT(*) FROM json_each(records.costs) j2
         WHERE j2.value < j1.value OR (j2.value = j1.value AND j2.key < j1.key))
        IN ((json_array_length(records.costs) - 1) / 2, json_array_length(records.costs) / 2))
  WHERE mean_cost IS NOT NULL
    AND CASE WHEN json_valid(costs) THEN json_type(costs) = 'array' ELSE 0 END;
CREATE INDEX records_config ON records(workload_id, target_id, config_index, id, mean_cost,
  median_cost, cold_cache, device_id, device_key, timestamp);
)sql";

constexpr Migration kMigrations[] = {
    {1, kSchemaV1}, {2, kSchemaV2}, {3, kSchemaV3}, {4, kSchemaV4},
    {5, kSchemaV5}, {6, kSchemaV6}, {7, kSchemaV7}, {8, kSchemaV8},
};
static_assert(std::size(kMigrations) == kCurrentSchemaVersion, "one migration per schema version");

constexpr char kCreateVersionTable[] =
    "CREATE TABLE IF NOT EXISTS schema_version(version INTEGER PRIMARY KEY, applied_at REAL "
    "NOT NULL DEFAULT ((julianday('now') - 2440587.5) * 86400.0))";
constexpr char kSelectVersion[] = "SELECT COALESCE(MAX(version), 0) FROM schema_version";
constexpr char kInsertVersion[] = "INSERT INTO schema_version(version) VALUES (?1)";
constexpr char kHasVersionTable[] =
    "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'";

absl::StatusOr<int> ReadVersion(Connection& conn) {
  absl::StatusOr<Statement> has = conn.Prepare(kHasVersionTable);
  if (!has.ok()) return has.status();
  absl::StatusOr<bool> row = has->Step();
  if (!row.ok()) return row.status();
  if (has->ColumnInt(0) == 0) return 0;
  absl::StatusOr<Statement> select = conn.Prepare(kSelectVersion);
  if (!select.ok()) return select.status();
  row = select->Step();
  if (!row.ok()) return row.status();
  return static_cast<int>(select->ColumnInt(0));
}

// Applies one migration inside the caller's transaction, unless another process already did.
absl::Status ApplyOne(Connection& conn, const Migration& m) {
  absl::StatusOr<int> version = ReadVersion(conn);
  if (!version.ok()) return version.status();
  if (*version >= m.version) return absl::OkStatus();
  if (*version != m.version - 1) {
    return absl::InternalError(
        absl::StrCat("schema version ", *version, " cannot migrate to ", m.version));
  }
  if (absl::Status s = conn.Exec(m.sql); !s.ok()) return s;
  absl::StatusOr<Statement> insert = conn.Prepare(kInsertVersion);
  if (!insert.ok()) return insert.status();
  return insert->BindInt(1, m.version).Run();
}

}  // namespace

absl::StatusOr<int> SchemaVersion(Connection& conn) { return ReadVersion(conn); }

absl::Status MigrateSchema(Connection& conn, int target_version) {
  if (target_version < 1 || target_version > kCurrentSchemaVersion) {
    return absl::InvalidArgumentError(absl::StrCat("schema version ", target_version,
                                                   " is not in [1, ", kCurrentSchemaVersion, "]"));
  }
  absl::StatusOr<int> version = ReadVersion(conn);
  if (!version.ok()) return version.status();
  if (*version > target_version) {
    return absl::FailedPreconditionError(absl::StrCat("tuning log has schema version ", *version,
                                                      " but this tunefarm supports up to ",
                                                      target_version, "; upgrade tunefarm"));
  }
  if (*version == target_version) return absl::OkStatus();
  if (absl::Status s = conn.Exec(kCreateVersionTable); !s.ok()) return s;
  for (const Migration& m : kMigrations) {
    if (m.version > target_version) break;
    if (absl::Status s = conn.Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
    absl::Status s = ApplyOne(conn, m);
    if (s.ok()) s = conn.Exec("COMMIT");
    if (!s.ok()) {
      conn.Exec("ROLLBACK").IgnoreError();
      conn.ClearStatementCache();
      return absl::Status(s.code(), absl::StrCat("migration to schema version ", m.version,
                                                 " failed: ", s.message()));
    }
  }
  // Cached statements were compiled against the old schema.
  conn.ClearStatementCache();
  return absl::OkStatus();
}

}  // namespace tunefarm::db
