#include "db/sqlite.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace tunefarm::db {

absl::Status SqliteError(int rc, sqlite3* db, absl::string_view what) {
  std::string msg = absl::StrCat(what, ": ", sqlite3_errstr(rc));
  if (db != nullptr && sqlite3_errcode(db) == rc)
    absl::StrAppend(&msg, " (", sqlite3_errmsg(db), ")");
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(
          absl::StrCat(msg, "; another process holds the database lock past the busy timeout"));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::DataLossError(msg);
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(msg);
    case SQLITE_CANTOPEN:
      return absl::NotFoundError(msg);
    case SQLITE_CONSTRAINT:
      return absl::FailedPreconditionError(msg);
    default:
      return absl::InternalError(msg);
  }
}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void Statement::NoteBind(int rc) {
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) bind_error_ = rc;
}

Statement& Statement::BindInt(int index, int64_t value) {
  NoteBind(sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::BindDouble(int index, double value) {
  NoteBind(sqlite3_bind_double(stmt_, index, value));
  return *this;
}

Statement& Statement::BindText(int index, absl::string_view value) {
  NoteBind(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                             SQLITE_TRANSIENT));
  return *this;
}

Statement& Statement::BindBlob(int index, absl::string_view bytes) {
  NoteBind(sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()),
                             SQLITE_TRANSIENT));
  return *this;
}

Statement& Statement::BindNull(int index) {
  NoteBind(sqlite3_bind_null(stmt_, index));
  return *this;
}

absl::StatusOr<bool> Statement::Step() {
  if (bind_error_ != SQLITE_OK) {
    return SqliteError(bind_error_, db_, absl::StrCat("bind for '", sqlite3_sql(stmt_), "'"));
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(rc, db_, absl::StrCat("step '", sqlite3_sql(stmt_), "'"));
}

absl::Status Statement::Run() {
  absl::StatusOr<bool> row = Step();
  if (!row.ok()) return row.status();
  return absl::OkStatus();
}

std::string Statement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text), sqlite3_column_bytes(stmt_, column));
}

std::string Statement::ColumnBlob(int column) const {
  const void* bytes = sqlite3_column_blob(stmt_, column);
  if (bytes == nullptr) return "";
  return std::string(static_cast<const char*>(bytes), sqlite3_column_bytes(stmt_, column));
}

absl::StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& path,
                                                             const ConnectionOptions& options) {
  sqlite3* db = nullptr;
  int flags =
      options.read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  // Each connection is used by one thread at a time (guarded by its owner).
  flags |= SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    absl::Status status = SqliteError(rc, db, absl::StrCat("open tuning log '", path, "'"));
    sqlite3_close(db);
    return status;
  }
  sqlite3_extended_result_codes(db, 0);
  sqlite3_busy_timeout(db, static_cast<int>(absl::ToInt64Milliseconds(options.busy_timeout)));
  return std::unique_ptr<Connection>(new Connection(db));
}

Connection::~Connection() {
  ClearStatementCache();
  sqlite3_close(db_);
}

absl::Status Connection::Exec(const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  sqlite3_free(err);
  if (rc != SQLITE_OK) return SqliteError(rc, db_, absl::StrCat("exec '", sql, "'"));
  return absl::OkStatus();
}

absl::StatusOr<Statement> Connection::Prepare(const char* sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return SqliteError(rc, db_, absl::StrCat("prepare '", sql, "'"));
    it = cache_.emplace(sql, stmt).first;
  }
  return Statement(it->second, db_);
}

void Connection::ClearStatementCache() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  cache_.clear();
}

}  // namespace tunefarm::db
