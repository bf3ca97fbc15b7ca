// The tuning log: every measurement the farm makes, in one SQLite file.
//
// Durability and concurrency model (see db/README.md):
//   * WAL journal mode: readers never block the writer and the writer never blocks readers.
//   * One writer connection per TuningLog, guarded by a mutex; each Insert() call is one
//     IMMEDIATE transaction, so a batch is all-or-nothing and a process killed at any point
//     loses at most the batch in flight. synchronous=FULL (default) also survives power loss.
//   * Readers borrow a connection from a pool, so many threads query concurrently.
//   * Every connection has a busy timeout; SQLITE_BUSY only surfaces (as Unavailable) when a
//     lock is held longer than that.
//   * All SQL is constant text with bound parameters.
#ifndef TUNEFARM_DB_TUNING_LOG_H_
#define TUNEFARM_DB_TUNING_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "common/metrics.h"
#include "db/record.h"
#include "db/sqlite.h"

namespace tunefarm::db {

// How a tuning log is opened.
struct TuningLogOptions {
  // Open for queries only: no writes, no migrations (the schema must be current).
  bool read_only = false;
  // How long any statement waits for a lock held by another connection or process.
  absl::Duration busy_timeout = absl::Seconds(10);
  // synchronous=FULL: a committed batch survives power loss (fsync per commit). false gives
  // synchronous=NORMAL: committed batches survive a killed process but maybe not power loss.
  bool sync_full = true;
  // Idle reader connections kept for reuse.
  int max_idle_readers = 8;
};

// A tuning job as recorded in the log.
struct JobInfo {
  // Assigned by CreateJob().
  int64_t id = 0;
  std::string name;
  std::string target;
  std::string device_key;
  std::string tuner_version;
  // Trial budget of the job.
  int64_t trials = 0;
  // Unix seconds.
  double created_at = 0;
};

// Which best configs to return.
struct BestQuery {
  // The workload (template name + canonical args; flop is not used for lookup).
  Workload workload;
  std::string target;
  // Restrict to one device key; empty = any device.
  std::string device_key;
  // Number of distinct configs to return (by config index), best first by the rule of
  // config_rank.h, the one a tuning job picks its winner by.
  int k = 5;
  // When the exact workload has no valid record, answer with the nearest recorded shape of the
  // same template (and device key, when given) instead of NotFound; results say exact=false.
  // Honoured by db::QueryBest (query_best.h); TuningLog::BestK answers exact shapes only.
  bool nearest_on_miss = false;
};

// One answer of a best-k query: a config and its score (config_rank.h).
struct BestRecord {
  // The config's latest valid measurement.
  Record record;
  // Seconds: the median of its measurements after the first, or its only measurement's cost.
  double cost_s = 0;
  // What it ranked by (config_rank.h: cost_s, or more for a config measured once that a config
  // measured again beat on its first run); the answers are in rank_s order, not cost_s order.
  double rank_s = 0;
  // Measurements cost_s is the median of, and whether it was measured again after the first.
  int runs = 0;
  bool confirmed = false;
  // GFLOP/s from the workload's FLOP count and cost_s; 0 when unknown.
  double gflops = 0;
  // false: the record belongs to the nearest recorded shape, not the requested one.
  bool exact = true;
  // Shape distance to the requested workload (0 when exact). See nearest_shape.h.
  double distance = 0;
};

// Which records feed transfer learning.
struct TemplateHistoryQuery {
  std::string template_name;
  std::string device_key;
  // Restrict to one target; empty = any.
  std::string target;
  // Include failed measurements (useful to learn invalid regions); default only valid ones.
  bool include_invalid = false;
  // At most this many records, newest first; 0 = no limit.
  int64_t limit = 0;
};

// Aggregates per (workload, target).
struct WorkloadStats {
  Workload workload;
  std::string target;
  int64_t records = 0;
  int64_t valid_records = 0;
  // Best (lowest) mean cost among valid records; 0 when none.
  double best_mean_cost = 0;
  double best_gflops = 0;
  double first_timestamp = 0;
  double last_timestamp = 0;
};

// Filters for Stats() and ForEachRecord(); empty fields match everything.
struct RecordFilter {
  std::string template_name;
  // Canonical workload args (only meaningful with template_name).
  std::string args;
  std::string target;
  std::string device_key;
};

class TuningLog {
 public:
  // Opens (creating when missing, unless read_only) the log at `path`, switches it to WAL and
  // migrates its schema to kCurrentSchemaVersion.
  // NotFound: the file or its directory does not exist (read_only) or cannot be created.
  // DataLoss: the file is not a SQLite database.
  // FailedPrecondition: written by a newer tunefarm, or read_only and the schema is older.
  // Unavailable: another process held the lock past the busy timeout.
  static absl::StatusOr<std::unique_ptr<TuningLog>> Open(const std::string& path,
                                                         const TuningLogOptions& options = {});
  ~TuningLog();
  TuningLog(const TuningLog&) = delete;
  TuningLog& operator=(const TuningLog&) = delete;

  const std::string& path() const { return path_; }

  // ---- Writes (serialized on the single writer connection) ----

  // Records a tuning job and returns its id.
  // FailedPrecondition: opened read_only. Unavailable/Internal: SQLite errors.
  absl::StatusOr<int64_t> CreateJob(const JobInfo& job);

  // Inserts `records` in one transaction (all or nothing) and returns their ids in order. A
  // record whose request_id the log already holds is not stored again: its id is the stored
  // record's (exactly once per measurement request).
  // Record::id is ignored; config_json is stored canonicalized. Workloads, targets and devices are
  // created on first use. InvalidArgument: a record has no template, target or device key, args
  // that are not a
  //   canonical JSON array, config_json that is not a JSON object, or error == kOk with no
  //   positive finite cost; nothing is written.
  // FailedPrecondition: opened read_only, or two workloads share a hash.
  // Unavailable: the write lock stayed busy past the busy timeout; nothing is written.
  absl::StatusOr<std::vector<int64_t>> Insert(absl::Span<const Record> records);

  // How long each Insert took from validation done to commit (seconds: waiting for the writer
  // lock and SQLite's, and the transaction), for /metrics.
  const Histogram& insert_latency() const { return insert_latency_; }

  // ---- Queries (any thread, concurrently) ----

  // The k best distinct configs of exactly this workload on a target (optionally one device
  // key); all exact=true, ranked as a tuning job ranks its configs (config_rank.h: each config
  // by all its records in log order, failed ones included). Emulated devices' records
  // (DeviceFingerprint::emulated) never rank with real ones: the answer is real measurements when
  // there is any, else emulated ones (each record says which). Likewise records timed with cold
  // caches (Record::cold_cache, as a model runs its layers) never rank with warm-timed ones: of the
  // chosen kind, the cold-timed records when there is any, else the warm ones. InvalidArgument: k <
  // 1, empty target/template, or nearest_on_miss set (nearest shapes are db::QueryBest's).
  // NotFound: no valid record.
  absl::StatusOr<std::vector<BestRecord>> BestK(const BestQuery& query) const;

  // The workloads of a template with at least one valid record on `target` (and device key,
  // when not empty): the candidates of a nearest-shape answer. Empty when there are none.
  // InvalidArgument: empty template or target.
  absl::StatusOr<std::vector<Workload>> RecordedShapes(const std::string& template_name,
                                                       const std::string& target,
                                                       const std::string& device_key) const;

  // Records of every workload of a template on a device key, newest first (transfer
  // learning). InvalidArgument: empty template name or device key.
  absl::StatusOr<std::vector<Record>> TemplateHistory(const TemplateHistoryQuery& query) const;

  // Every record of a job in insertion order (the tuning curve). Empty when the job has none.
  absl::StatusOr<std::vector<Record>> JobHistory(int64_t job_id) const;

  // The job row. NotFound: no such job.
  absl::StatusOr<JobInfo> GetJob(int64_t job_id) const;

  // Keeps the canonical text of a tensor-expression program under its hash (16 hex digits, as
  // in its template name "expr:NAME:HASH"); saving the same hash again is a no-op.
  // InvalidArgument: a hash that is not 16 hex digits, an empty text; FailedPrecondition: a
  // read-only log.
  absl::Status SaveProgram(const std::string& hash, const std::string& name,
                           const std::string& text, double created_at);
  // The text saved under `hash`. NotFound: none.
  absl::StatusOr<std::string> ProgramText(const std::string& hash) const;

  // Per (workload, target) statistics, ordered by template, args, target.
  absl::StatusOr<std::vector<WorkloadStats>> Stats(const RecordFilter& filter = {}) const;

  // Calls `fn` on every matching record in id order; stops at and returns the first error.
  absl::Status ForEachRecord(const RecordFilter& filter,
                             absl::FunctionRef<absl::Status(const Record&)> fn) const;

  // Number of records.
  absl::StatusOr<int64_t> CountRecords() const;

  // Runs PRAGMA integrity_check. DataLoss (with SQLite's report) when not "ok".
  absl::Status CheckIntegrity() const;

 private:
  class ReaderLease;

  // Insert's latency (thread-safe itself).
  Histogram insert_latency_{Histogram::LatencyBoundsSeconds()};

  TuningLog(std::string path, const TuningLogOptions& options, std::unique_ptr<Connection> writer);

  // Runs `fn` on the prepared constant `sql` of a pooled reader connection.
  absl::Status WithReader(const char* sql, absl::FunctionRef<absl::Status(Statement&)> fn) const;
  // Borrows an idle reader connection or opens a new one.
  absl::StatusOr<std::unique_ptr<Connection>> AcquireReader() const;
  void ReleaseReader(std::unique_ptr<Connection> conn) const;

  absl::StatusOr<int64_t> WorkloadId(const Workload& w) ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  absl::StatusOr<int64_t> TargetId(const std::string& target)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  absl::StatusOr<int64_t> DeviceId(const std::string& key, const DeviceFingerprint& fp)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // `configs[i]` is the canonical config text of records[i].
  absl::StatusOr<std::vector<int64_t>> InsertLocked(absl::Span<const Record> records,
                                                    absl::Span<const std::string* const> configs)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  void ForgetIdCaches() ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);

  const std::string path_;
  const TuningLogOptions options_;

  mutable absl::Mutex write_mu_;
  // Null when read_only.
  std::unique_ptr<Connection> writer_ ABSL_GUARDED_BY(write_mu_);
  // Row ids of rows known to be committed, so hot inserts skip the lookups. Cleared on
  // rollback since rows created in the failed transaction are gone.
  absl::flat_hash_map<uint64_t, int64_t> workload_ids_ ABSL_GUARDED_BY(write_mu_);
  absl::flat_hash_map<std::string, int64_t> target_ids_ ABSL_GUARDED_BY(write_mu_);
  absl::flat_hash_map<std::string, int64_t> device_ids_ ABSL_GUARDED_BY(write_mu_);

  mutable absl::Mutex pool_mu_;
  mutable std::vector<std::unique_ptr<Connection>> idle_readers_ ABSL_GUARDED_BY(pool_mu_);
};

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_TUNING_LOG_H_
