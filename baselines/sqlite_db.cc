#include "baselines/sqlite_db.h"

namespace flatbench::baselines {

void Statement::Finalize() {
  sqlite3_finalize(stmt_);
  stmt_ = nullptr;
}

Status Statement::BindBlob(int index, std::string_view blob) {
  // A zero-length blob still needs a non-null pointer, or it binds NULL.
  static const char kEmpty = 0;
  int rc = sqlite3_bind_blob(stmt_, index, blob.empty() ? &kEmpty : blob.data(),
                             static_cast<int>(blob.size()), SQLITE_STATIC);
  if (rc == SQLITE_OK) return Status::Ok();
  return Status::Usage(std::string("sqlite bind: ") + sqlite3_errstr(rc));
}

Status Statement::BindInt(int index, int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc == SQLITE_OK) return Status::Ok();
  return Status::Usage(std::string("sqlite bind: ") + sqlite3_errstr(rc));
}

std::string_view Statement::ColumnBlob(int index) const {
  const void* p = sqlite3_column_blob(stmt_, index);
  // The length after the pointer, as SQLite documents.
  const int n = sqlite3_column_bytes(stmt_, index);
  if (p == nullptr) return {};
  return {static_cast<const char*>(p), static_cast<size_t>(n)};
}

Status Db::Open(const std::string& path, int flags) {
  path_ = path;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    Status st = Error(rc, "open");
    (void)Close();
    return st;
  }
  // SQLite reports corruption; it is not a crash.
  sqlite3_extended_result_codes(db_, 1);
  return Status::Ok();
}

Status Db::OpenReadOnly(const std::string& path, int64_t cache_bytes) {
  FLATBENCH_RETURN_IF_ERROR(Open(path, SQLITE_OPEN_READONLY |
                                           SQLITE_OPEN_NOMUTEX |
                                           SQLITE_OPEN_PRIVATECACHE));
  // Negative: a size in KiB, whatever the page size.
  return Exec("PRAGMA cache_size = -" + std::to_string(cache_bytes / 1024) +
              "; PRAGMA mmap_size = 0");
}

Status Db::OpenCreate(const std::string& path) {
  return Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                        SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE);
}

Status Db::OpenReadWrite(const std::string& path) {
  return Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
                        SQLITE_OPEN_PRIVATECACHE);
}

Status Db::Close() {
  if (db_ == nullptr) return Status::Ok();
  int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK) return Error(rc, "close");
  db_ = nullptr;
  return Status::Ok();
}

Status Db::Exec(const std::string& sql) {
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : Error(rc, sql);
}

int Statement::PrepareOn(sqlite3* db, const std::string& sql) {
  Finalize();
  return sqlite3_prepare_v3(db, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT,
                            &stmt_, nullptr);
}

Status Db::Prepare(const std::string& sql, Statement* out) {
  const int rc = out->PrepareOn(db_, sql);
  return rc == SQLITE_OK ? Status::Ok() : Error(rc, sql);
}

Result<uint64_t> Db::QueryCount(const std::string& sql) const {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr);
  if (rc != SQLITE_OK) return Error(rc, sql);
  rc = sqlite3_step(s);
  const int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
  sqlite3_finalize(s);
  if (rc == SQLITE_DONE)
    return Status::NotFound(path_ + ": " + sql + ": no row");
  if (rc != SQLITE_ROW) return Error(rc, sql);
  if (v < 0) return Status::Corruption(path_ + ": " + sql + ": negative");
  return static_cast<uint64_t>(v);
}

Result<std::string> Db::QueryText(const std::string& sql,
                                  const std::string& separator) const {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr);
  if (rc != SQLITE_OK) return Error(rc, sql);
  std::string out;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(s, 0);
    if (!out.empty()) out += separator;
    if (t != nullptr) out += reinterpret_cast<const char*>(t);
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) return Error(rc, sql);
  return out;
}

uint64_t Db::MemoryUsed() const {
  uint64_t total = 0;
  for (int op : {SQLITE_DBSTATUS_CACHE_USED, SQLITE_DBSTATUS_SCHEMA_USED,
                 SQLITE_DBSTATUS_STMT_USED}) {
    int cur = 0, high = 0;
    if (sqlite3_db_status(db_, op, &cur, &high, 0) == SQLITE_OK) total += cur;
  }
  return total;
}

Status Db::Error(int rc, const std::string& what) const {
  std::string msg = path_ + ": " + what + ": " +
                    (db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
      return Status::Corruption(msg);
    case SQLITE_NOTADB:
      return Status::NotOurFormat(msg + " (not a SQLite database)");
    default:
      return Status::IOError(msg);
  }
}

}  // namespace flatbench::baselines
