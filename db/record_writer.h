// Batched writes to the tuning log: the tuner adds records one at a time as results arrive and
// the writer commits them in transactions of `batch_size`, so a crash loses at most one batch
// and the fsync cost is paid once per batch, not per record.
#ifndef TUNEFARM_DB_RECORD_WRITER_H_
#define TUNEFARM_DB_RECORD_WRITER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "db/record.h"
#include "db/tuning_log.h"

namespace tunefarm::db {

struct RecordWriterOptions {
  // Records per transaction; Add() commits when this many are pending.
  int batch_size = 64;
  // Called after each successful commit with the committed records, ids filled in (e.g. to
  // update a tuning curve or tell a client they are durable). Runs on the committing thread.
  std::function<void(absl::Span<const Record>)> on_commit;
};

// Thread-safe. Does not own the log, which must outlive it.
class RecordWriter {
 public:
  // InvalidArgument: batch_size < 1 or null log.
  static absl::StatusOr<std::unique_ptr<RecordWriter>> Create(TuningLog* log,
                                                              RecordWriterOptions options = {});
  // Flushes what is pending; a failure here is only reported through raw logging, so call
  // Flush() explicitly where it matters.
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  // Queues `record` and commits the batch when full.
  // InvalidArgument: the record is malformed (see TuningLog::Insert); it is not queued.
  // Unavailable/Internal: the batch commit failed; the records stay pending for a retry.
  absl::Status Add(Record record);

  // Commits everything pending as one transaction. Errors as TuningLog::Insert; on error the
  // records stay pending.
  absl::Status Flush();

  // Records waiting for the next commit.
  int64_t pending() const;
  // Records committed by this writer so far.
  int64_t committed() const;

 private:
  RecordWriter(TuningLog* log, RecordWriterOptions options)
      : log_(log), options_(std::move(options)) {}
  absl::Status FlushLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  TuningLog* const log_;
  const RecordWriterOptions options_;
  mutable absl::Mutex mu_;
  std::vector<Record> pending_ ABSL_GUARDED_BY(mu_);
  int64_t committed_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_RECORD_WRITER_H_
