// Links SQLite 3.40: opens an in-memory database, writes and reads back a row.
#include <sqlite3.h>

#include "gtest/gtest.h"

namespace tunefarm {
namespace {

TEST(SqliteSmoke, InMemory_InsertSelect_RoundTrips) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (7);", nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT x FROM t", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 7);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

}  // namespace
}  // namespace tunefarm
