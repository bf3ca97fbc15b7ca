#include "db/job_store.h"

#include "absl/strings/str_cat.h"
#include "db/migrations.h"

namespace tunefarm::db {
namespace {

constexpr char kSave[] =
    "INSERT INTO service_jobs(job_id, seq, status, terminal, updated_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(job_id) DO UPDATE SET "
    "seq = excluded.seq, status = excluded.status, terminal = excluded.terminal, "
    "updated_at = excluded.updated_at";
constexpr char kLoad[] =
    "SELECT job_id, seq, status, terminal, updated_at FROM service_jobs ORDER BY seq";
constexpr char kForget[] = "DELETE FROM service_jobs WHERE job_id = ?1";

absl::Status WithPath(const absl::Status& s, const std::string& path) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
}

}  // namespace

absl::StatusOr<std::unique_ptr<JobStore>> JobStore::Open(const std::string& path) {
  absl::StatusOr<std::unique_ptr<Connection>> conn = Connection::Open(path, ConnectionOptions());
  if (!conn.ok()) return conn.status();
  if (absl::Status s = (*conn)->Exec("PRAGMA journal_mode=WAL"); !s.ok()) {
    return WithPath(s, path);
  }
  if (absl::Status s = MigrateSchema(**conn); !s.ok()) return WithPath(s, path);
  return std::unique_ptr<JobStore>(new JobStore(*std::move(conn)));
}

JobStore::~JobStore() = default;

absl::Status JobStore::Save(const StoredJob& job) {
  if (job.job_id.empty()) return absl::InvalidArgumentError("JobStore::Save: empty job id");
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> s = conn_->Prepare(kSave);
  if (!s.ok()) return s.status();
  s->BindText(1, job.job_id)
      .BindInt(2, job.seq)
      .BindBlob(3, job.status)
      .BindInt(4, job.terminal ? 1 : 0)
      .BindDouble(5, job.updated_at);
  return s->Run();
}

absl::StatusOr<std::vector<StoredJob>> JobStore::Load() const {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> s = conn_->Prepare(kLoad);
  if (!s.ok()) return s.status();
  std::vector<StoredJob> jobs;
  while (true) {
    absl::StatusOr<bool> row = s->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    StoredJob job;
    job.job_id = s->ColumnText(0);
    job.seq = s->ColumnInt(1);
    job.status = s->ColumnBlob(2);
    job.terminal = s->ColumnInt(3) != 0;
    job.updated_at = s->ColumnDouble(4);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

absl::Status JobStore::Forget(const std::string& job_id) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<Statement> s = conn_->Prepare(kForget);
  if (!s.ok()) return s.status();
  s->BindText(1, job_id);
  return s->Run();
}

}  // namespace tunefarm::db
