// Thin RAII layer over the SQLite C API: a connection that caches prepared statements and a
// scoped statement handle that binds parameters, steps, and resets itself when it goes out of
// scope. Every query in db/ goes through Prepare(): SQL text is constant, values are bound.
#ifndef TUNEFARM_DB_SQLITE_H_
#define TUNEFARM_DB_SQLITE_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace tunefarm::db {

// Maps a SQLite result code to an absl::Status with `what` and SQLite's message:
// SQLITE_BUSY/LOCKED -> Unavailable, CORRUPT/NOTADB -> DataLoss, FULL -> ResourceExhausted,
// CANTOPEN -> NotFound, CONSTRAINT -> FailedPrecondition, anything else -> Internal.
absl::Status SqliteError(int rc, sqlite3* db, absl::string_view what);

// A prepared statement borrowed from a Connection's cache. Binding indexes are 1-based,
// column indexes 0-based, as in SQLite. Resets and clears bindings on destruction so the
// cached statement is ready for the next user. Move-only; not thread-safe (neither is the
// Connection it came from).
class Statement {
 public:
  Statement(sqlite3_stmt* stmt, sqlite3* db) : stmt_(stmt), db_(db) {}
  Statement(Statement&& other) noexcept : stmt_(other.stmt_), db_(other.db_) {
    other.stmt_ = nullptr;
  }
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  Statement& BindInt(int index, int64_t value);
  Statement& BindDouble(int index, double value);
  Statement& BindText(int index, absl::string_view value);
  Statement& BindNull(int index);
  // Arbitrary bytes (e.g. a serialized protobuf), stored as a BLOB.
  Statement& BindBlob(int index, absl::string_view bytes);

  // Steps once. Returns true when a row is available, false when done.
  // Unavailable: the database stayed busy past the busy timeout. DataLoss: corrupt file.
  // FailedPrecondition: a constraint failed. Internal: anything else (incl. a failed bind).
  absl::StatusOr<bool> Step();
  // Steps a statement that returns no rows (INSERT, UPDATE, ...). Errors as Step().
  absl::Status Run();

  int64_t ColumnInt(int column) const { return sqlite3_column_int64(stmt_, column); }
  double ColumnDouble(int column) const { return sqlite3_column_double(stmt_, column); }
  std::string ColumnText(int column) const;
  std::string ColumnBlob(int column) const;
  bool ColumnIsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

 private:
  void NoteBind(int rc);

  sqlite3_stmt* stmt_;
  sqlite3* db_;
  int bind_error_ = SQLITE_OK;
};

// How a connection is opened.
struct ConnectionOptions {
  // Open read-only (readers) or read-write-create (the writer and migrations).
  bool read_only = false;
  // How long a statement waits on a lock held by another connection before giving up.
  absl::Duration busy_timeout = absl::Seconds(10);
};

// One SQLite connection. Not thread-safe: one thread at a time (the TuningLog guards it).
class Connection {
 public:
  // Opens `path` (created when missing unless read-only) and sets the busy timeout.
  // NotFound: cannot open (missing directory, or read-only and the file does not exist).
  // DataLoss: the file is not a SQLite database.
  static absl::StatusOr<std::unique_ptr<Connection>> Open(const std::string& path,
                                                          const ConnectionOptions& options);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs constant SQL text with no parameters (PRAGMAs, DDL, BEGIN/COMMIT). Never pass text
  // built from user input: use Prepare() and Bind*().
  absl::Status Exec(const char* sql);

  // Returns the cached prepared statement for constant `sql`, preparing it on first use.
  // Internal: the SQL does not compile against the current schema.
  absl::StatusOr<Statement> Prepare(const char* sql);

  // Drops every cached statement (needed after a schema change).
  void ClearStatementCache();

  int64_t LastInsertRowid() const { return sqlite3_last_insert_rowid(db_); }
  sqlite3* raw() const { return db_; }

 private:
  explicit Connection(sqlite3* db) : db_(db) {}

  sqlite3* db_;
  // Keyed by the SQL text's address: every caller passes a string constant.
  absl::flat_hash_map<const char*, sqlite3_stmt*> cache_;
};

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_SQLITE_H_
