#include "db/record_writer.h"

#include <utility>

#include "absl/base/internal/raw_logging.h"
#include "absl/strings/str_cat.h"

namespace tunefarm::db {

absl::StatusOr<std::unique_ptr<RecordWriter>> RecordWriter::Create(TuningLog* log,
                                                                   RecordWriterOptions options) {
  if (log == nullptr) return absl::InvalidArgumentError("record writer: null tuning log");
  if (options.batch_size < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("record writer: batch_size must be >= 1, got ", options.batch_size));
  }
  return std::unique_ptr<RecordWriter>(new RecordWriter(log, std::move(options)));
}

RecordWriter::~RecordWriter() {
  absl::MutexLock lock(&mu_);
  if (pending_.empty()) return;
  absl::Status s = FlushLocked();
  if (!s.ok()) {
    ABSL_RAW_LOG(ERROR, "tuning log %s: %d records lost on close: %s", log_->path().c_str(),
                 static_cast<int>(pending_.size()), s.ToString().c_str());
  }
}

absl::Status RecordWriter::Add(Record record) {
  // Validate now so one bad record cannot poison a whole batch later.
  if (absl::Status s = ValidateRecord(record); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  pending_.push_back(std::move(record));
  if (static_cast<int>(pending_.size()) >= options_.batch_size) return FlushLocked();
  return absl::OkStatus();
}

absl::Status RecordWriter::Flush() {
  absl::MutexLock lock(&mu_);
  return FlushLocked();
}

absl::Status RecordWriter::FlushLocked() {
  if (pending_.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<int64_t>> ids = log_->Insert(pending_);
  if (!ids.ok()) return ids.status();
  for (size_t i = 0; i < pending_.size(); ++i) pending_[i].id = (*ids)[i];
  committed_ += static_cast<int64_t>(pending_.size());
  if (options_.on_commit) options_.on_commit(pending_);
  pending_.clear();
  return absl::OkStatus();
}

int64_t RecordWriter::pending() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int64_t>(pending_.size());
}

int64_t RecordWriter::committed() const {
  absl::MutexLock lock(&mu_);
  return committed_;
}

}  // namespace tunefarm::db
