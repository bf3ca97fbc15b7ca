// Schema of the tuning log and its forward migrations.
//
// The `schema_version` table holds one row per applied migration; the database's version is the
// largest. Opening a log runs every migration above it, each in its own IMMEDIATE transaction,
// so concurrent openers serialize and a crash mid-migration leaves the previous version intact.
// Migrations are append-only: never edit a released one, add the next.
#ifndef TUNEFARM_DB_MIGRATIONS_H_
#define TUNEFARM_DB_MIGRATIONS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "db/sqlite.h"

namespace tunefarm::db {

// The schema version this build writes and reads.
inline constexpr int kCurrentSchemaVersion = 8;

// The version of the schema in `conn`: 0 for an empty database.
// Internal/DataLoss: the database cannot be read.
absl::StatusOr<int> SchemaVersion(Connection& conn);

// Applies the migrations after the database's version up to `target_version`.
// InvalidArgument: target_version is not in [1, kCurrentSchemaVersion].
// FailedPrecondition: the database was written by a newer tunefarm (version > target).
// Unavailable: another process held the write lock past the busy timeout.
absl::Status MigrateSchema(Connection& conn, int target_version = kCurrentSchemaVersion);

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_MIGRATIONS_H_
