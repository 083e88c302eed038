#pragma once
// Thin owners of a SQLite connection and a prepared statement, with
// SQLite's result codes turned into our Status. Used by the SQLite backend
// and its writer only.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace flatbench::baselines {

// A prepared statement. Not thread-safe (one connection, one thread).
class Statement {
 public:
  Statement() = default;
  ~Statement() { Finalize(); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void Finalize();
  // Ends the current execution; views from ColumnBlob end with it.
  void Reset() { sqlite3_reset(stmt_); }
  // Binds without copying: `blob` must stay valid until the next Reset.
  Status BindBlob(int index, std::string_view blob);
  Status BindInt(int index, int64_t value);
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int Step() { return sqlite3_step(stmt_); }
  // Column `index` of the current row. Valid until the next Step, Reset or
  // Finalize.
  std::string_view ColumnBlob(int index) const;
  // Finalizes what it held and prepares `sql` on `db` to be run many times
  // (SQLITE_PREPARE_PERSISTENT); SQLite's result code. Db::Prepare calls
  // it and names the statement in its error.
  int PrepareOn(sqlite3* db, const std::string& sql);

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// A connection to one database file. Not thread-safe.
class Db {
 public:
  Db() = default;
  ~Db() { (void)Close(); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE,
  // with a page cache of `cache_bytes` and no memory map.
  Status OpenReadOnly(const std::string& path, int64_t cache_bytes);
  // Read-write, created if missing.
  Status OpenCreate(const std::string& path);
  // Read-write; the file must exist (SQLITE_CANTOPEN otherwise).
  Status OpenReadWrite(const std::string& path);
  // Closes; an error if statements are still open.
  Status Close();

  // Runs one or more statements, discarding their rows.
  Status Exec(const std::string& sql);
  Status Prepare(const std::string& sql, Statement* out);
  // The first column of the first row as an integer; kNotFound if the
  // query returns no row.
  Result<uint64_t> QueryCount(const std::string& sql) const;
  // The first column of every row as text, joined with `separator`.
  Result<std::string> QueryText(const std::string& sql,
                                const std::string& separator = "; ") const;
  // SQLite's heap for this connection: page cache, schema, statements.
  uint64_t MemoryUsed() const;

  // The Status for result code `rc`: the file, `what`, and SQLite's
  // message. SQLITE_CORRUPT is kCorruption, SQLITE_NOTADB kNotOurFormat,
  // anything else kIOError.
  Status Error(int rc, const std::string& what) const;

 private:
  Status Open(const std::string& path, int flags);
  sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace flatbench::baselines
