#include "db/tuning_log.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "db/config_rank.h"
#include "db/json.h"
#include "db/migrations.h"

namespace tunefarm::db {
namespace {

// Columns decoded by ReadRecord(), shared by every query that returns records.
#define TF_RECORD_SELECT                                                           \
  "SELECT r.id, w.template, w.args, w.flop, t.target, r.device_key, "              \
  "COALESCE(d.cpu_model, ''), COALESCE(d.gpu_model, ''), COALESCE(d.cores, 0), "   \
  "COALESCE(d.driver_version, ''), COALESCE(d.compiler_version, ''), "             \
  "COALESCE(r.job_id, 0), r.config_index, r.config_json, r.costs, r.error_class, " \
  "r.error_message, r.tuner_version, r.timestamp, r.mean_cost, "                   \
  "COALESCE(r.request_id, ''), COALESCE(d.emulated, 0), r.cold_cache "             \
  "FROM records r JOIN workloads w ON w.id = r.workload_id "                       \
  "JOIN targets t ON t.id = r.target_id LEFT JOIN devices d ON d.id = r.device_id "

// A workload's records on a target, each config's together and in log order (the
// records_config index): the cost of a valid one (the median of its repeats, the mean where a
// row has none) and its kind of device and timing, NULL for a failed one, and the config's
// knobs (a config index measured in two versions of its space is two configs).
#define TF_CONFIG_COSTS_SELECT                                                        \
  "SELECT r.config_index, r.id, CASE WHEN r.mean_cost IS NULL THEN NULL ELSE "        \
  "COALESCE(r.median_cost, r.mean_cost) END, COALESCE(d.emulated, 0), r.cold_cache, " \
  "r.config_json FROM records r LEFT JOIN devices d ON d.id = r.device_id "           \
  "WHERE r.workload_id = ?1 AND r.target_id = ?2 "
constexpr char kConfigCostsAnyDevice[] = TF_CONFIG_COSTS_SELECT "ORDER BY r.config_index, r.id";
constexpr char kConfigCostsOneDevice[] =
    TF_CONFIG_COSTS_SELECT "AND r.device_key = ?3 ORDER BY r.config_index, r.id";
constexpr char kRecordById[] = TF_RECORD_SELECT "WHERE r.id = ?1";
constexpr char kJobHistory[] = TF_RECORD_SELECT "WHERE r.job_id = ?1 ORDER BY r.id";
constexpr char kTemplateHistory[] = TF_RECORD_SELECT
    "WHERE r.device_key = ?1 AND w.template = ?2 AND (?3 = '' OR t.target = ?3) "
    "AND (?4 OR r.mean_cost IS NOT NULL) ORDER BY r.id DESC LIMIT ?5";
constexpr char kAllRecords[] = TF_RECORD_SELECT
    "WHERE (?1 = '' OR w.template = ?1) AND (?2 = '' OR t.target = ?2) "
    "AND (?3 = '' OR r.device_key = ?3) AND (?4 = '' OR w.args = ?4) ORDER BY r.id";
#undef TF_RECORD_SELECT

constexpr char kFindWorkload[] = "SELECT id FROM workloads WHERE hash = ?1";
constexpr char kFindTarget[] = "SELECT id FROM targets WHERE target = ?1";
// Workloads of a template with at least one valid record on the target (and device key). The
// target's id is a scalar subquery, evaluated once; an unknown target matches nothing.
constexpr char kCandidatesAnyDevice[] =
    "SELECT w.args, w.flop FROM workloads w WHERE w.template = ?1 AND EXISTS (SELECT 1 FROM "
    "records r WHERE r.workload_id = w.id AND r.mean_cost IS NOT NULL AND "
    "r.target_id = (SELECT id FROM targets WHERE target = ?2))";
constexpr char kCandidatesOneDevice[] =
    "SELECT w.args, w.flop FROM workloads w WHERE w.template = ?1 AND EXISTS (SELECT 1 FROM "
    "records r WHERE r.workload_id = w.id AND r.device_key = ?3 AND r.mean_cost IS NOT NULL AND "
    "r.target_id = (SELECT id FROM targets WHERE target = ?2))";

constexpr char kUpsertWorkload[] =
    "INSERT INTO workloads(hash, template, args, flop) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT(hash) DO UPDATE SET flop = excluded.flop "
    "WHERE workloads.flop = 0 AND excluded.flop > 0";
constexpr char kSelectWorkload[] = "SELECT id, template, args FROM workloads WHERE hash = ?1";
constexpr char kUpsertTarget[] =
    "INSERT INTO targets(target) VALUES (?1) ON CONFLICT(target) DO NOTHING";
constexpr char kUpsertDevice[] =
    "INSERT INTO devices(key, fingerprint, cpu_model, gpu_model, cores, driver_version, "
    "compiler_version, emulated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
    "ON CONFLICT(key, fingerprint) DO NOTHING";
constexpr char kSelectDevice[] = "SELECT id FROM devices WHERE key = ?1 AND fingerprint = ?2";
constexpr char kInsertRecord[] =
    "INSERT INTO records(workload_id, target_id, device_key, device_id, job_id, config_index, "
    "config_json, costs, mean_cost, error_class, error_message, tuner_version, timestamp, "
    "request_id, cold_cache, median_cost) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
    "?12, ?13, ?14, ?15, ?16)";
constexpr char kRecordOfRequest[] = "SELECT id FROM records WHERE request_id = ?1";
constexpr char kInsertJob[] =
    "INSERT INTO jobs(name, created_at, target, device_key, tuner_version, trials) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
constexpr char kSelectJob[] =
    "SELECT id, name, created_at, target, device_key, tuner_version, trials FROM jobs "
    "WHERE id = ?1";
constexpr char kStats[] =
    "SELECT w.template, w.args, w.flop, t.target, COUNT(*), COUNT(r.mean_cost), "
    "COALESCE(MIN(r.mean_cost), 0), MIN(r.timestamp), MAX(r.timestamp) "
    "FROM records r JOIN workloads w ON w.id = r.workload_id "
    "JOIN targets t ON t.id = r.target_id "
    "WHERE (?1 = '' OR w.template = ?1) AND (?2 = '' OR t.target = ?2) "
    "AND (?3 = '' OR r.device_key = ?3) AND (?4 = '' OR w.args = ?4) "
    "GROUP BY r.workload_id, r.target_id ORDER BY w.template, w.args, t.target";
constexpr char kCount[] = "SELECT COUNT(*) FROM records";
constexpr char kIntegrity[] = "PRAGMA integrity_check";

absl::StatusOr<Record> ReadRecord(const Statement& s) {
  Record r;
  r.id = s.ColumnInt(0);
  r.workload.template_name = s.ColumnText(1);
  r.workload.args = s.ColumnText(2);
  r.workload.flop = s.ColumnDouble(3);
  r.target = s.ColumnText(4);
  r.device_key = s.ColumnText(5);
  r.device.cpu_model = s.ColumnText(6);
  r.device.gpu_model = s.ColumnText(7);
  r.device.cores = static_cast<int>(s.ColumnInt(8));
  r.device.driver_version = s.ColumnText(9);
  r.device.compiler_version = s.ColumnText(10);
  r.job_id = s.ColumnInt(11);
  r.config_index = s.ColumnInt(12);
  r.config_json = s.ColumnText(13);
  absl::StatusOr<std::vector<double>> costs = ParseJsonNumberArray(s.ColumnText(14));
  if (!costs.ok()) {
    return absl::DataLossError(
        absl::StrCat("record ", r.id, " has unreadable costs: ", costs.status().message()));
  }
  r.costs = *std::move(costs);
  absl::StatusOr<ErrorClass> error = ErrorClassFromInt(s.ColumnInt(15));
  if (!error.ok()) {
    return absl::DataLossError(absl::StrCat("record ", r.id, ": ", error.status().message()));
  }
  r.error = *error;
  r.error_message = s.ColumnText(16);
  r.tuner_version = s.ColumnText(17);
  r.timestamp = s.ColumnDouble(18);
  r.request_id = s.ColumnText(20);
  r.device.emulated = s.ColumnInt(21) != 0;
  r.cold_cache = s.ColumnInt(22) != 0;
  return r;
}

absl::Status WithContext(const absl::Status& s, absl::string_view what) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(what, ": ", s.message()));
}

// Looks up the id of a row by one text or int key with a constant SELECT; nullopt if absent.
absl::StatusOr<std::optional<int64_t>> FindId(Connection& conn, const char* sql,
                                              absl::string_view text_key) {
  absl::StatusOr<Statement> s = conn.Prepare(sql);
  if (!s.ok()) return s.status();
  s->BindText(1, text_key);
  absl::StatusOr<bool> row = s->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<int64_t>();
  return std::optional<int64_t>(s->ColumnInt(0));
}

absl::StatusOr<std::optional<int64_t>> FindWorkloadId(Connection& conn, const Workload& w) {
  absl::StatusOr<Statement> s = conn.Prepare(kFindWorkload);
  if (!s.ok()) return s.status();
  s->BindInt(1, static_cast<int64_t>(w.Hash()));
  absl::StatusOr<bool> row = s->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<int64_t>();
  return std::optional<int64_t>(s->ColumnInt(0));
}

// One row of kConfigCosts*: a record of a config, in log order.
struct ConfigRow {
  int64_t config_index = 0;
  int64_t id = 0;
  // +inf for a failed record.
  double cost_s = 0;
  bool emulated = false;
  bool cold = false;
  std::string config_json;
};

// Appends the best distinct configs among `rows` to `out`, up to `k`, counting the valid
// records of one kind of device (real or emulated) and timing (cold or warm) and the failed
// ones of that kind of device (a failed run has no timing). Configs rank as a tuning job ranks
// its top configs (config_rank.h); each answer carries the config's latest valid record.
absl::Status CollectBestOf(Connection& conn, const std::vector<ConfigRow>& rows, int k,
                           bool emulated, bool cold, std::vector<BestRecord>* out) {
  // Each config's costs in log order, keyed by (index, knobs), and its latest valid record.
  struct Config {
    std::vector<double> costs_s;
    std::optional<int64_t> latest_id;
  };
  std::map<std::pair<int64_t, std::string>, Config> configs;
  for (const ConfigRow& r : rows) {
    const bool valid = std::isfinite(r.cost_s);
    if (r.emulated != emulated || (valid && r.cold != cold)) continue;  // another kind
    Config& c = configs[{r.config_index, r.config_json}];
    c.costs_s.push_back(r.cost_s);
    if (valid) c.latest_id = r.id;
  }
  std::vector<ConfigScore> scores;
  for (const auto& [key, c] : configs) {
    if (!c.latest_id.has_value()) continue;  // no valid record of this kind
    scores.push_back(ScoreConfig(key.first, c.costs_s));
    scores.back().tag = *c.latest_id;
  }
  SortByRank(scores);
  for (const ConfigScore& score : scores) {
    if (static_cast<int>(out->size()) >= k) break;
    absl::StatusOr<Statement> by_id = conn.Prepare(kRecordById);  // reset when it goes
    if (!by_id.ok()) return by_id.status();
    by_id->BindInt(1, score.tag);
    absl::StatusOr<bool> row = by_id->Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::InternalError("best-k: a record vanished within one read snapshot");
    absl::StatusOr<Record> record = ReadRecord(*by_id);
    if (!record.ok()) return record.status();
    BestRecord best;
    best.cost_s = score.cost_s;
    best.rank_s = score.rank_s;
    best.runs = score.runs;
    best.confirmed = score.confirmed;
    best.record = *std::move(record);
    best.gflops = best.record.workload.flop > 0 ? best.record.workload.flop / best.cost_s / 1e9 : 0;
    out->push_back(std::move(best));
  }
  return absl::OkStatus();
}

// Distinct-config best-k over one workload id, from one scan of its records on the target.
// Real devices' records when there is any, else emulated ones; of those, the ones timed with
// cold caches when there is any (as a model runs its layers), else warm ones. The sets never
// rank together: a warm time is faster than the same kernel's cold one, and would win a
// mixed ranking for a reason that is not the kernel.
absl::Status CollectBest(Connection& conn, int64_t workload_id, int64_t target_id,
                         const std::string& device_key, int k, std::vector<BestRecord>* out) {
  std::vector<ConfigRow> rows;
  {
    absl::StatusOr<Statement> s =
        conn.Prepare(device_key.empty() ? kConfigCostsAnyDevice : kConfigCostsOneDevice);
    if (!s.ok()) return s.status();
    s->BindInt(1, workload_id).BindInt(2, target_id);
    if (!device_key.empty()) s->BindText(3, device_key);
    while (true) {
      absl::StatusOr<bool> row = s->Step();
      if (!row.ok()) return row.status();
      if (!*row) break;
      ConfigRow r;
      r.config_index = s->ColumnInt(0);
      r.id = s->ColumnInt(1);
      const bool valid = !s->ColumnIsNull(2) && s->ColumnDouble(2) > 0;
      r.cost_s = valid ? s->ColumnDouble(2) : ConfigScore::kInf;
      r.emulated = s->ColumnInt(3) != 0;
      r.cold = s->ColumnInt(4) != 0;
      r.config_json = s->ColumnText(5);
      rows.push_back(std::move(r));
    }
  }
  const size_t before = out->size();
  for (bool emulated : {false, true}) {
    for (bool cold : {true, false}) {
      if (absl::Status s = CollectBestOf(conn, rows, k, emulated, cold, out);
          !s.ok() || out->size() > before) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

// A reader connection on loan from the pool; returns it on destruction.
class TuningLog::ReaderLease {
 public:
  ReaderLease(const TuningLog* log, std::unique_ptr<Connection> conn)
      : log_(log), conn_(std::move(conn)) {}
  ~ReaderLease() { log_->ReleaseReader(std::move(conn_)); }
  Connection& operator*() const { return *conn_; }

 private:
  const TuningLog* log_;
  std::unique_ptr<Connection> conn_;
};

absl::StatusOr<std::unique_ptr<TuningLog>> TuningLog::Open(const std::string& path,
                                                           const TuningLogOptions& options) {
  ConnectionOptions conn_options;
  conn_options.read_only = options.read_only;
  conn_options.busy_timeout = options.busy_timeout;
  absl::StatusOr<std::unique_ptr<Connection>> conn = Connection::Open(path, conn_options);
  if (!conn.ok()) return conn.status();
  if (options.read_only) {
    absl::StatusOr<int> version = SchemaVersion(**conn);
    if (!version.ok()) return WithContext(version.status(), path);
    if (*version < kCurrentSchemaVersion) {
      // A log of an older tunefarm: migrated once (a short write, as any writer of it would),
      // so reading commands (best, compile, export) work after an upgrade. A file this
      // process may not write stays as it is, and says so.
      conn->reset();
      TuningLogOptions writer = options;
      writer.read_only = false;
      absl::StatusOr<std::unique_ptr<TuningLog>> migrated = Open(path, writer);
      if (!migrated.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat(path, ": schema version ", *version, " of an older tunefarm, expected ",
                         kCurrentSchemaVersion, ", and it cannot be migrated here (",
                         migrated.status().message(),
                         "); open it once with write access (e.g. tunefarm import-log or tune)"));
      }
      migrated->reset();
      return Open(path, options);
    }
    if (*version != kCurrentSchemaVersion) {
      return absl::FailedPreconditionError(absl::StrCat(path, ": schema version ", *version,
                                                        ", expected ", kCurrentSchemaVersion,
                                                        ": written by a newer tunefarm"));
    }
    return std::unique_ptr<TuningLog>(new TuningLog(path, options, nullptr));
  }
  // journal_mode=WAL is persistent in the file; every connection sees it afterwards.
  if (absl::Status s = (*conn)->Exec("PRAGMA journal_mode=WAL"); !s.ok()) {
    return WithContext(s, path);
  }
  if (absl::Status s = (*conn)->Exec(options.sync_full ? "PRAGMA synchronous=FULL"
                                                       : "PRAGMA synchronous=NORMAL");
      !s.ok()) {
    return WithContext(s, path);
  }
  if (absl::Status s = (*conn)->Exec("PRAGMA foreign_keys=ON"); !s.ok()) {
    return WithContext(s, path);
  }
  if (absl::Status s = MigrateSchema(**conn); !s.ok()) return WithContext(s, path);
  return std::unique_ptr<TuningLog>(new TuningLog(path, options, *std::move(conn)));
}

TuningLog::TuningLog(std::string path, const TuningLogOptions& options,
                     std::unique_ptr<Connection> writer)
    : path_(std::move(path)), options_(options), writer_(std::move(writer)) {}

TuningLog::~TuningLog() = default;

absl::StatusOr<std::unique_ptr<Connection>> TuningLog::AcquireReader() const {
  {
    absl::MutexLock lock(&pool_mu_);
    if (!idle_readers_.empty()) {
      std::unique_ptr<Connection> conn = std::move(idle_readers_.back());
      idle_readers_.pop_back();
      return conn;
    }
  }
  ConnectionOptions conn_options;
  conn_options.read_only = options_.read_only;
  conn_options.busy_timeout = options_.busy_timeout;
  absl::StatusOr<std::unique_ptr<Connection>> conn = Connection::Open(path_, conn_options);
  if (!conn.ok()) return conn.status();
  if (!options_.read_only) {
    if (absl::Status s = (*conn)->Exec("PRAGMA query_only=1"); !s.ok()) return s;
  }
  return conn;
}

void TuningLog::ReleaseReader(std::unique_ptr<Connection> conn) const {
  absl::MutexLock lock(&pool_mu_);
  if (static_cast<int>(idle_readers_.size()) < options_.max_idle_readers) {
    idle_readers_.push_back(std::move(conn));
  }
}

absl::StatusOr<int64_t> TuningLog::CreateJob(const JobInfo& job) {
  absl::MutexLock lock(&write_mu_);
  if (writer_ == nullptr) return absl::FailedPreconditionError("tuning log opened read-only");
  absl::StatusOr<Statement> s = writer_->Prepare(kInsertJob);
  if (!s.ok()) return s.status();
  s->BindText(1, job.name)
      .BindDouble(2, job.created_at)
      .BindText(3, job.target)
      .BindText(4, job.device_key)
      .BindText(5, job.tuner_version)
      .BindInt(6, job.trials);
  if (absl::Status st = s->Run(); !st.ok()) return WithContext(st, "create job");
  return writer_->LastInsertRowid();
}

absl::StatusOr<std::vector<int64_t>> TuningLog::Insert(absl::Span<const Record> records) {
  // Validate everything before taking the lock. Parsing JSON dominates insert cost, so each
  // distinct args/config text of the batch is checked once.
  absl::flat_hash_set<absl::string_view> good_args;
  // node_hash_map: `configs` points into the values, which must not move on rehash.
  absl::node_hash_map<absl::string_view, std::string> canonical_configs;
  std::vector<const std::string*> configs;
  configs.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    absl::Status s = ValidateRecordFields(r);
    if (s.ok() && !good_args.contains(r.workload.args)) {
      s = ValidateWorkloadArgs(r.workload.args);
      if (s.ok()) good_args.insert(r.workload.args);
    }
    auto it = canonical_configs.find(r.config_json);
    if (s.ok() && it == canonical_configs.end()) {
      absl::StatusOr<std::string> config = CanonicalConfigJson(r.config_json);
      s = config.status();
      if (s.ok()) it = canonical_configs.emplace(r.config_json, *std::move(config)).first;
    }
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat("record ", i, ": ", s.message()));
    configs.push_back(&it->second);
  }
  // Write latency as callers see it: waiting for the writer, the transaction and the commit
  // (only of calls that write).
  const absl::Time started = absl::Now();
  absl::MutexLock lock(&write_mu_);
  if (writer_ == nullptr) return absl::FailedPreconditionError("tuning log opened read-only");
  if (records.empty()) return std::vector<int64_t>();
  absl::Cleanup observe = [&] {
    insert_latency_.Observe(absl::ToDoubleSeconds(absl::Now() - started));
  };
  // IMMEDIATE takes the write lock up front (waiting up to the busy timeout) instead of
  // failing on a lock upgrade halfway through the batch.
  if (absl::Status s = writer_->Exec("BEGIN IMMEDIATE"); !s.ok()) {
    return WithContext(s, "insert records");
  }
  absl::StatusOr<std::vector<int64_t>> ids = InsertLocked(records, configs);
  absl::Status s = ids.status();
  if (s.ok()) s = writer_->Exec("COMMIT");
  if (!s.ok()) {
    writer_->Exec("ROLLBACK").IgnoreError();
    ForgetIdCaches();
    return WithContext(s, "insert records (batch rolled back)");
  }
  return ids;
}

absl::StatusOr<std::vector<int64_t>> TuningLog::InsertLocked(
    absl::Span<const Record> records, absl::Span<const std::string* const> configs) {
  std::vector<int64_t> ids;
  ids.reserve(records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    if (!r.request_id.empty()) {
      // Delivered before (a result sent again after a lost acknowledgement): stored once.
      absl::StatusOr<Statement> seen = writer_->Prepare(kRecordOfRequest);
      if (!seen.ok()) return seen.status();
      seen->BindText(1, r.request_id);
      absl::StatusOr<bool> row = seen->Step();
      if (!row.ok()) return row.status();
      if (*row) {
        ids.push_back(seen->ColumnInt(0));
        continue;
      }
    }
    absl::StatusOr<int64_t> workload_id = WorkloadId(r.workload);
    if (!workload_id.ok()) return workload_id.status();
    absl::StatusOr<int64_t> target_id = TargetId(r.target);
    if (!target_id.ok()) return target_id.status();
    absl::StatusOr<int64_t> device_id = DeviceId(r.device_key, r.device);
    if (!device_id.ok()) return device_id.status();
    absl::StatusOr<Statement> s = writer_->Prepare(kInsertRecord);
    if (!s.ok()) return s.status();
    s->BindInt(1, *workload_id)
        .BindInt(2, *target_id)
        .BindText(3, r.device_key)
        .BindInt(4, *device_id)
        .BindText(7, *configs[i])
        .BindInt(6, r.config_index)
        .BindText(8, JsonNumberArray(r.costs))
        .BindInt(10, static_cast<int64_t>(r.error))
        .BindText(11, r.error_message)
        .BindText(12, r.tuner_version)
        .BindDouble(13, r.timestamp)
        .BindInt(15, r.cold_cache ? 1 : 0);
    if (r.job_id != 0) {
      s->BindInt(5, r.job_id);
    } else {
      s->BindNull(5);
    }
    if (!r.request_id.empty()) {
      s->BindText(14, r.request_id);
    } else {
      s->BindNull(14);
    }
    if (std::optional<double> mean = r.MeanCost(); mean.has_value()) {
      s->BindDouble(9, *mean);
      s->BindDouble(16, RecordCost(r));
    } else {
      s->BindNull(9);
      s->BindNull(16);
    }
    if (absl::Status st = s->Run(); !st.ok()) return st;
    ids.push_back(writer_->LastInsertRowid());
  }
  return ids;
}

absl::StatusOr<int64_t> TuningLog::WorkloadId(const Workload& w) {
  uint64_t hash = w.Hash();
  if (auto it = workload_ids_.find(hash); it != workload_ids_.end()) return it->second;
  absl::StatusOr<Statement> upsert = writer_->Prepare(kUpsertWorkload);
  if (!upsert.ok()) return upsert.status();
  upsert->BindInt(1, static_cast<int64_t>(hash))
      .BindText(2, w.template_name)
      .BindText(3, w.args)
      .BindDouble(4, w.flop);
  if (absl::Status s = upsert->Run(); !s.ok()) return s;
  absl::StatusOr<Statement> select = writer_->Prepare(kSelectWorkload);
  if (!select.ok()) return select.status();
  select->BindInt(1, static_cast<int64_t>(hash));
  absl::StatusOr<bool> row = select->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::InternalError("workload row vanished after upsert");
  if (select->ColumnText(1) != w.template_name || select->ColumnText(2) != w.args) {
    return absl::FailedPreconditionError(
        absl::StrCat("workload hash collision between ", w.CanonicalString(), " and ",
                     select->ColumnText(1), "|", select->ColumnText(2)));
  }
  int64_t id = select->ColumnInt(0);
  workload_ids_[hash] = id;
  return id;
}

absl::StatusOr<int64_t> TuningLog::TargetId(const std::string& target) {
  if (auto it = target_ids_.find(target); it != target_ids_.end()) return it->second;
  absl::StatusOr<Statement> upsert = writer_->Prepare(kUpsertTarget);
  if (!upsert.ok()) return upsert.status();
  if (absl::Status s = upsert->BindText(1, target).Run(); !s.ok()) return s;
  absl::StatusOr<std::optional<int64_t>> id = FindId(*writer_, kFindTarget, target);
  if (!id.ok()) return id.status();
  if (!id->has_value()) return absl::InternalError("target row vanished after upsert");
  target_ids_[target] = **id;
  return **id;
}

absl::StatusOr<int64_t> TuningLog::DeviceId(const std::string& key, const DeviceFingerprint& fp) {
  std::string fingerprint = fp.CanonicalString();
  std::string cache_key = absl::StrCat(key, "\n", fingerprint);
  if (auto it = device_ids_.find(cache_key); it != device_ids_.end()) return it->second;
  absl::StatusOr<Statement> upsert = writer_->Prepare(kUpsertDevice);
  if (!upsert.ok()) return upsert.status();
  upsert->BindText(1, key)
      .BindText(2, fingerprint)
      .BindText(3, fp.cpu_model)
      .BindText(4, fp.gpu_model)
      .BindInt(5, fp.cores)
      .BindText(6, fp.driver_version)
      .BindText(7, fp.compiler_version)
      .BindInt(8, fp.emulated ? 1 : 0);
  if (absl::Status s = upsert->Run(); !s.ok()) return s;
  absl::StatusOr<Statement> select = writer_->Prepare(kSelectDevice);
  if (!select.ok()) return select.status();
  select->BindText(1, key).BindText(2, fingerprint);
  absl::StatusOr<bool> row = select->Step();
  if (!row.ok()) return row.status();
  if (!*row) return absl::InternalError("device row vanished after upsert");
  int64_t id = select->ColumnInt(0);
  device_ids_[cache_key] = id;
  return id;
}

void TuningLog::ForgetIdCaches() {
  workload_ids_.clear();
  target_ids_.clear();
  device_ids_.clear();
}

absl::StatusOr<std::vector<BestRecord>> TuningLog::BestK(const BestQuery& query) const {
  if (query.k < 1) return absl::InvalidArgumentError("best-k: k must be at least 1");
  if (query.target.empty()) return absl::InvalidArgumentError("best-k: empty target");
  if (query.workload.template_name.empty()) {
    return absl::InvalidArgumentError("best-k: empty template name");
  }
  if (query.nearest_on_miss) {
    return absl::InvalidArgumentError(
        "best-k: the log answers exact shapes; nearest shapes are db::QueryBest's");
  }
  absl::StatusOr<std::unique_ptr<Connection>> leased = AcquireReader();
  if (!leased.ok()) return leased.status();
  ReaderLease lease(this, *std::move(leased));
  Connection& conn = *lease;
  // Reads below see one snapshot of the log.
  if (absl::Status s = conn.Exec("BEGIN"); !s.ok()) return s;
  struct EndRead {
    Connection& conn;
    ~EndRead() { conn.Exec("COMMIT").IgnoreError(); }
  } end_read{conn};

  auto not_found = [&] {
    return absl::NotFoundError(absl::StrCat(
        "no valid record for ", query.workload.CanonicalString(), " on target '", query.target, "'",
        query.device_key.empty() ? "" : absl::StrCat(" device key '", query.device_key, "'")));
  };
  absl::StatusOr<std::optional<int64_t>> target_id = FindId(conn, kFindTarget, query.target);
  if (!target_id.ok()) return target_id.status();
  if (!target_id->has_value()) return not_found();
  std::vector<BestRecord> out;
  absl::StatusOr<std::optional<int64_t>> workload_id = FindWorkloadId(conn, query.workload);
  if (!workload_id.ok()) return workload_id.status();
  if (workload_id->has_value()) {
    if (absl::Status s =
            CollectBest(conn, **workload_id, **target_id, query.device_key, query.k, &out);
        !s.ok()) {
      return s;
    }
  }
  if (out.empty()) return not_found();
  return out;
}

absl::StatusOr<std::vector<Workload>> TuningLog::RecordedShapes(
    const std::string& template_name, const std::string& target,
    const std::string& device_key) const {
  if (template_name.empty()) return absl::InvalidArgumentError("shapes: empty template name");
  if (target.empty()) return absl::InvalidArgumentError("shapes: empty target");
  std::vector<Workload> out;
  absl::Status st = WithReader(
      device_key.empty() ? kCandidatesAnyDevice : kCandidatesOneDevice, [&](Statement& s) {
        s.BindText(1, template_name).BindText(2, target);
        if (!device_key.empty()) s.BindText(3, device_key);
        while (true) {
          absl::StatusOr<bool> row = s.Step();
          if (!row.ok()) return row.status();
          if (!*row) return absl::OkStatus();
          out.push_back(Workload{template_name, s.ColumnText(0), s.ColumnDouble(1)});
        }
      });
  if (!st.ok()) return st;
  return out;
}

namespace {

// Steps `s` to the end, decoding each row into a record for `fn`.
absl::Status ForEachRow(Statement& s, absl::FunctionRef<absl::Status(const Record&)> fn) {
  while (true) {
    absl::StatusOr<bool> row = s.Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
    absl::StatusOr<Record> record = ReadRecord(s);
    if (!record.ok()) return record.status();
    if (absl::Status st = fn(*record); !st.ok()) return st;
  }
}

}  // namespace

absl::Status TuningLog::WithReader(const char* sql,
                                   absl::FunctionRef<absl::Status(Statement&)> fn) const {
  absl::StatusOr<std::unique_ptr<Connection>> leased = AcquireReader();
  if (!leased.ok()) return leased.status();
  ReaderLease lease(this, *std::move(leased));
  absl::StatusOr<Statement> s = (*lease).Prepare(sql);
  if (!s.ok()) return s.status();
  return fn(*s);
}

namespace {

// Binds a RecordFilter to ?1..?4 of kStats and kAllRecords.
void BindFilter(Statement& s, const RecordFilter& filter) {
  s.BindText(1, filter.template_name)
      .BindText(2, filter.target)
      .BindText(3, filter.device_key)
      .BindText(4, filter.args);
}

// Every record `s` returns.
absl::StatusOr<std::vector<Record>> AllRows(Statement& s) {
  std::vector<Record> out;
  absl::Status st = ForEachRow(s, [&](const Record& r) {
    out.push_back(r);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

}  // namespace

absl::StatusOr<std::vector<Record>> TuningLog::TemplateHistory(
    const TemplateHistoryQuery& query) const {
  if (query.template_name.empty() || query.device_key.empty()) {
    return absl::InvalidArgumentError("template history: template and device key are required");
  }
  absl::StatusOr<std::vector<Record>> out;
  absl::Status st = WithReader(kTemplateHistory, [&](Statement& s) {
    s.BindText(1, query.device_key)
        .BindText(2, query.template_name)
        .BindText(3, query.target)
        .BindInt(4, query.include_invalid ? 1 : 0)
        .BindInt(5, query.limit > 0 ? query.limit : -1);
    out = AllRows(s);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<std::vector<Record>> TuningLog::JobHistory(int64_t job_id) const {
  absl::StatusOr<std::vector<Record>> out;
  absl::Status st = WithReader(kJobHistory, [&](Statement& s) {
    s.BindInt(1, job_id);
    out = AllRows(s);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<JobInfo> TuningLog::GetJob(int64_t job_id) const {
  JobInfo job;
  absl::Status st = WithReader(kSelectJob, [&](Statement& s) -> absl::Status {
    s.BindInt(1, job_id);
    absl::StatusOr<bool> row = s.Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::NotFoundError(absl::StrCat("no job with id ", job_id, " in ", path_));
    job.id = s.ColumnInt(0);
    job.name = s.ColumnText(1);
    job.created_at = s.ColumnDouble(2);
    job.target = s.ColumnText(3);
    job.device_key = s.ColumnText(4);
    job.tuner_version = s.ColumnText(5);
    job.trials = s.ColumnInt(6);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return job;
}

absl::Status TuningLog::SaveProgram(const std::string& hash, const std::string& name,
                                    const std::string& text, double created_at) {
  if (hash.size() != 16 || hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("program hash '", hash, "' is not 16 lowercase hex digits"));
  }
  if (text.empty()) return absl::InvalidArgumentError("empty program text");
  absl::MutexLock lock(&write_mu_);
  if (writer_ == nullptr) return absl::FailedPreconditionError("tuning log opened read-only");
  absl::StatusOr<Statement> s = writer_->Prepare(
      "INSERT OR IGNORE INTO programs(hash, name, text, created_at) VALUES (?1, ?2, ?3, ?4)");
  if (!s.ok()) return s.status();
  s->BindText(1, hash).BindText(2, name).BindText(3, text).BindDouble(4, created_at);
  return WithContext(s->Run(), "save program");
}

absl::StatusOr<std::string> TuningLog::ProgramText(const std::string& hash) const {
  std::string text;
  absl::Status st =
      WithReader("SELECT text FROM programs WHERE hash = ?1", [&](Statement& s) -> absl::Status {
        s.BindText(1, hash);
        absl::StatusOr<bool> row = s.Step();
        if (!row.ok()) return row.status();
        if (!*row) {
          return absl::NotFoundError(absl::StrCat("no program with hash ", hash, " in ", path_));
        }
        text = s.ColumnText(0);
        return absl::OkStatus();
      });
  if (!st.ok()) return st;
  return text;
}

absl::StatusOr<std::vector<WorkloadStats>> TuningLog::Stats(const RecordFilter& filter) const {
  std::vector<WorkloadStats> out;
  absl::Status st = WithReader(kStats, [&](Statement& s) -> absl::Status {
    BindFilter(s, filter);
    while (true) {
      absl::StatusOr<bool> row = s.Step();
      if (!row.ok()) return row.status();
      if (!*row) return absl::OkStatus();
      WorkloadStats w;
      w.workload.template_name = s.ColumnText(0);
      w.workload.args = s.ColumnText(1);
      w.workload.flop = s.ColumnDouble(2);
      w.target = s.ColumnText(3);
      w.records = s.ColumnInt(4);
      w.valid_records = s.ColumnInt(5);
      w.best_mean_cost = s.ColumnDouble(6);
      w.best_gflops = w.best_mean_cost > 0 && w.workload.flop > 0
                          ? w.workload.flop / w.best_mean_cost / 1e9
                          : 0;
      w.first_timestamp = s.ColumnDouble(7);
      w.last_timestamp = s.ColumnDouble(8);
      out.push_back(std::move(w));
    }
  });
  if (!st.ok()) return st;
  return out;
}

absl::Status TuningLog::ForEachRecord(const RecordFilter& filter,
                                      absl::FunctionRef<absl::Status(const Record&)> fn) const {
  return WithReader(kAllRecords, [&](Statement& s) {
    BindFilter(s, filter);
    return ForEachRow(s, fn);
  });
}

absl::StatusOr<int64_t> TuningLog::CountRecords() const {
  int64_t count = 0;
  absl::Status st = WithReader(kCount, [&](Statement& s) -> absl::Status {
    absl::StatusOr<bool> row = s.Step();
    if (!row.ok()) return row.status();
    count = s.ColumnInt(0);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return count;
}

absl::Status TuningLog::CheckIntegrity() const {
  std::string report;
  absl::Status st = WithReader(kIntegrity, [&](Statement& s) -> absl::Status {
    while (true) {
      absl::StatusOr<bool> row = s.Step();
      if (!row.ok()) return row.status();
      if (!*row) return absl::OkStatus();
      absl::StrAppend(&report, report.empty() ? "" : "; ", s.ColumnText(0));
    }
  });
  if (!st.ok()) return st;
  if (report != "ok") {
    return absl::DataLossError(absl::StrCat(path_, ": integrity_check: ", report));
  }
  return absl::OkStatus();
}

}  // namespace tunefarm::db
