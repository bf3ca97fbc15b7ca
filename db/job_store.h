// The job service's own state, kept in the tuning-log file beside the records: one row per
// job with its latest status, so a restarted service lists its old jobs and resumes the
// running ones. The status travels as opaque bytes (the service stores a serialized
// tunefarm.v1.JobStatus); this layer does not read them.
#ifndef TUNEFARM_DB_JOB_STORE_H_
#define TUNEFARM_DB_JOB_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "db/sqlite.h"

namespace tunefarm::db {

struct StoredJob {
  // The service's id, e.g. "job-7".
  std::string job_id;
  // Submission order.
  int64_t seq = 0;
  // The service's status bytes.
  std::string status;
  // Succeeded, failed or cancelled: nothing to resume.
  bool terminal = false;
  // Unix seconds of this save, on the caller's clock (the job manager's injected clock).
  double updated_at = 0;
};

class JobStore {
 public:
  // Opens (creating and migrating when needed) the store in the SQLite file `path`; the same
  // file as a TuningLog is the intended use. Errors: as TuningLog::Open.
  static absl::StatusOr<std::unique_ptr<JobStore>> Open(const std::string& path);
  ~JobStore();

  // Inserts or replaces the row of `job.job_id`. InvalidArgument: empty job id.
  absl::Status Save(const StoredJob& job);

  // Every stored job in submission order.
  absl::StatusOr<std::vector<StoredJob>> Load() const;

  // Deletes the row of `job_id` (absent: no-op).
  absl::Status Forget(const std::string& job_id);

 private:
  explicit JobStore(std::unique_ptr<Connection> conn) : conn_(std::move(conn)) {}

  mutable absl::Mutex mu_;
  std::unique_ptr<Connection> conn_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_JOB_STORE_H_
