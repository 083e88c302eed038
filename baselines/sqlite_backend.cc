// The SQLite reader and loader. One file, over 300 lines, because the
// session, the backend, the ordered walk and the loader share the schema
// and the settings; the connection wrapper is sqlite_db.cc and the cold-open
// page walk sqlite_pages.cc.
#include "baselines/sqlite_backend.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "baselines/sqlite_db.h"
#include "baselines/sqlite_pages.h"
#include "common/files.h"

namespace flatbench::baselines {
namespace {

// Per connection: 8192 pages of 4 KiB. At 32 reader threads the sessions'
// caches add up to 1 GiB, RocksDB's block cache; below that the OS page
// cache, which LMDB and the arena rely on alone, serves the rest.
constexpr int64_t kCacheBytes = 32LL << 20;
// While loading: one connection, a cache big enough for the right edge of
// both trees and the pages being filled.
constexpr int64_t kLoadCacheBytes = 256LL << 20;
constexpr uint64_t kPairsPerTxn = 1'000'000;

std::string Path(const std::string& dir) { return dir + "/" + kSqliteFile; }

class SqliteSession : public ReadSession {
 public:
  Status Init(const std::string& path) {
    FLATBENCH_RETURN_IF_ERROR(db_.OpenReadOnly(path, kCacheBytes));
    for (int t = 0; t < kNumTables; ++t) {
      const std::string name = TableName(static_cast<Table>(t));
      FLATBENCH_RETURN_IF_ERROR(
          db_.Prepare("SELECT v FROM " + name + " WHERE k = ?1", &get_[t]));
      FLATBENCH_RETURN_IF_ERROR(db_.Prepare(
          "SELECT k, v FROM " + name + " WHERE k >= ?1 ORDER BY k LIMIT ?2",
          &scan_[t]));
    }
    // One read transaction for the session's life, as LMDB's long-lived
    // read transaction and RocksDB's snapshot: no lock is taken per read.
    FLATBENCH_RETURN_IF_ERROR(db_.Exec("BEGIN"));
    in_txn_ = true;
    return Status::Ok();
  }
  ~SqliteSession() override {
    for (auto& s : get_) s.Reset();
    for (auto& s : scan_) s.Reset();
    if (in_txn_) db_.Exec("COMMIT").ok();
  }

  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    Statement& s = get_[static_cast<int>(table)];
    // Ends the previous Get's view.
    s.Reset();
    FLATBENCH_RETURN_IF_ERROR(s.BindBlob(1, key));
    int rc = s.Step();
    if (rc == SQLITE_DONE) {
      *found = false;
      return Status::Ok();
    }
    if (rc != SQLITE_ROW) return db_.Error(rc, "get");
    *found = true;
    *value = s.ColumnBlob(0);
    return Status::Ok();
  }

  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    *count = 0;
    Statement& s = scan_[static_cast<int>(table)];
    s.Reset();
    FLATBENCH_RETURN_IF_ERROR(s.BindBlob(1, start));
    FLATBENCH_RETURN_IF_ERROR(s.BindInt(2, limit));
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      visitor->Visit(s.ColumnBlob(0), s.ColumnBlob(1));
      ++*count;
    }
    s.Reset();
    if (rc != SQLITE_DONE) return db_.Error(rc, "scan");
    return Status::Ok();
  }

 private:
  Db db_;
  Statement get_[kNumTables];
  Statement scan_[kNumTables];
  bool in_txn_ = false;
};

class SqliteBackend : public Backend {
 public:
  std::string Name() const override { return "sqlite"; }
  Result<std::unique_ptr<TableScan>> OpenScan(Table table) override;
  Result<std::string> CheckIntegrity() override;
  Result<std::unique_ptr<ReadSession>> NewSession() override {
    auto s = std::make_unique<SqliteSession>();
    FLATBENCH_RETURN_IF_ERROR(s->Init(path_));
    return std::unique_ptr<ReadSession>(std::move(s));
  }
  // SQLite's heap for the backend's own connection (schema, statements,
  // cache); sessions' caches fill later, per connection.
  uint64_t ResidentMetadataBytes() const override { return db_.MemoryUsed(); }
  Settings Describe() const override {
    return {
        {"schema", "(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID, per table"},
        {"file", kSqliteFile},
        {"page_size", std::to_string(page_size_)},
        {"journal_mode", journal_mode_},
        {"connection",
         "one per session: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, "
         "private cache"},
        {"cache_size", std::to_string(kCacheBytes) + " bytes per connection"},
        {"mmap_size", "0 (reads with pread into the connection's cache)"},
        {"read_txn", "one read transaction per session, held for its life"},
        {"statements",
         "prepared per table: Get k = ?1; Scan k >= ?1 "
         "ORDER BY k LIMIT ?2"},
        {"load",
         "ascending keys, 1M rows per transaction, journal_mode=OFF and "
         "synchronous=OFF while loading; then WAL, checkpoint, fsync"},
        {"library", sqlite3_libversion()},
        {"preload", preload_},
    };
  }
  std::vector<std::string> DataFiles(Table /*table*/) const override {
    return {path_};
  }
  Result<uint64_t> CountPairs(Table table) const override {
    // SQLite keeps no row count: this walks the table's leaves.
    return db_.QueryCount(std::string("SELECT count(*) FROM ") +
                          TableName(table));
  }

  Db db_;
  std::string path_;
  int64_t page_size_ = 0;
  std::string journal_mode_;
  std::string preload_ = "nothing (lazy metadata)";
};

Status OpenChecked(SqliteBackend* b, const OpenOptions& options) {
  FLATBENCH_RETURN_IF_ERROR(b->db_.OpenReadOnly(b->path_, kCacheBytes));
  FLATBENCH_ASSIGN_OR_RETURN(auto page_size,
                             b->db_.QueryCount("PRAGMA page_size"));
  b->page_size_ = static_cast<int64_t>(page_size);
  FLATBENCH_ASSIGN_OR_RETURN(b->journal_mode_,
                             b->db_.QueryText("PRAGMA journal_mode"));
  std::vector<uint32_t> roots;
  for (int t = 0; t < kNumTables; ++t) {
    const char* name = TableName(static_cast<Table>(t));
    auto root = b->db_.QueryCount(
        std::string("SELECT rootpage FROM sqlite_schema WHERE type = 'table' "
                    "AND name = '") +
        name + "'");
    if (!root.ok() && root.status().code() == Code::kNotFound) {
      return Status::Corruption(b->path_ + ": no table '" + name + "' in it");
    }
    if (!root.ok()) return root.status();
    roots.push_back(static_cast<uint32_t>(root.value()));
  }
  if (options.lazy_metadata) return Status::Ok();
  FLATBENCH_ASSIGN_OR_RETURN(auto pre, PreloadInteriorPages(b->path_, roots));
  b->preload_ = "page 1 and interior B-tree pages read at open: " +
                std::to_string(pre.pages) + " pages, " +
                std::to_string(pre.bytes) + " bytes";
  return Status::Ok();
}

class SqliteLoader : public BulkLoader {
 public:
  explicit SqliteLoader(std::string dir)
      : dir_(std::move(dir)), loading_(dir_ + "/loading.sqlite") {}
  ~SqliteLoader() override {
    if (finished_) return;
    for (auto& s : insert_) s.Finalize();
    (void)db_.Close();
    std::error_code ec;
    std::filesystem::remove(loading_, ec);  // Nothing may look complete.
  }

  Status Init() {
    FLATBENCH_RETURN_IF_ERROR(db_.OpenCreate(loading_));
    // The file is renamed into place only after Finish; until then a crash
    // leaves a file nothing opens, so the load needs no journal or syncs.
    FLATBENCH_RETURN_IF_ERROR(
        db_.Exec("PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; "
                 "PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; "
                 "PRAGMA cache_size = -" +
                 std::to_string(kLoadCacheBytes / 1024)));
    for (int t = 0; t < kNumTables; ++t) {
      const std::string name = TableName(static_cast<Table>(t));
      FLATBENCH_RETURN_IF_ERROR(
          db_.Exec("CREATE TABLE " + name +
                   " (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID"));
      FLATBENCH_RETURN_IF_ERROR(db_.Prepare(
          "INSERT INTO " + name + " (k, v) VALUES (?1, ?2)", &insert_[t]));
    }
    return db_.Exec("BEGIN");
  }

  Status Add(Table table, std::string_view key,
             std::string_view value) override {
    const int t = static_cast<int>(table);
    if (t < current_) {
      return Status::Usage("sqlite load: account pair after storage pairs");
    }
    if (t != current_) last_.clear();
    current_ = t;
    if (!last_.empty() && key <= last_) {
      return Status::Corruption(std::string("sqlite load ") + TableName(table) +
                                ": key not ascending");
    }
    last_.assign(key);
    Statement& s = insert_[t];
    FLATBENCH_RETURN_IF_ERROR(s.BindBlob(1, key));
    FLATBENCH_RETURN_IF_ERROR(s.BindBlob(2, value));
    int rc = s.Step();
    s.Reset();
    if (rc != SQLITE_DONE) return db_.Error(rc, "insert");
    if (++in_txn_ >= kPairsPerTxn) {
      in_txn_ = 0;
      FLATBENCH_RETURN_IF_ERROR(db_.Exec("COMMIT; BEGIN"));
    }
    return Status::Ok();
  }

  Status Finish() override {
    FLATBENCH_RETURN_IF_ERROR(db_.Exec("COMMIT"));
    for (auto& s : insert_) s.Finalize();
    // WAL from here on: readers never block on a writer. The checkpoint
    // leaves every page in the database file and an empty log, which the
    // close removes.
    FLATBENCH_RETURN_IF_ERROR(
        db_.Exec("PRAGMA locking_mode = NORMAL; PRAGMA synchronous = FULL; "
                 "PRAGMA journal_mode = WAL"));
    FLATBENCH_RETURN_IF_ERROR(db_.Exec("PRAGMA wal_checkpoint(TRUNCATE)"));
    FLATBENCH_RETURN_IF_ERROR(db_.Close());
    std::error_code ec;
    for (const char* suffix : {"-wal", "-shm"}) {
      if (std::filesystem::exists(loading_ + suffix, ec)) {
        return Status::IOError(loading_ + suffix + ": left after the close");
      }
    }
    FLATBENCH_RETURN_IF_ERROR(FsyncFile(loading_));
    if (std::rename(loading_.c_str(), Path(dir_).c_str()) != 0) {
      return Status::FromErrno("rename " + loading_);
    }
    FLATBENCH_RETURN_IF_ERROR(SyncDir(dir_));
    finished_ = true;
    return Status::Ok();
  }

 private:
  static Status FsyncFile(const std::string& path) {
    UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.ok()) return Status::FromErrno("open " + path);
    if (fsync(fd.get()) != 0) return Status::FromErrno("fsync " + path);
    return Status::Ok();
  }

  std::string dir_;
  std::string loading_;
  Db db_;
  Statement insert_[kNumTables];
  int current_ = 0;
  std::string last_;
  uint64_t in_txn_ = 0;
  bool finished_ = false;
};

class SqliteScan : public TableScan {
 public:
  Status Open(const std::string& path, Table table) {
    FLATBENCH_RETURN_IF_ERROR(db_.OpenReadOnly(path, kCacheBytes));
    return db_.Prepare(
        std::string("SELECT k, v FROM ") + TableName(table) + " ORDER BY k",
        &stmt_);
  }
  Status Next(bool* valid, std::string_view* key,
              std::string_view* value) override {
    int rc = stmt_.Step();
    *valid = rc == SQLITE_ROW;
    if (rc == SQLITE_DONE) return Status::Ok();
    if (rc != SQLITE_ROW) return db_.Error(rc, "scan");
    *key = stmt_.ColumnBlob(0);
    *value = stmt_.ColumnBlob(1);
    return Status::Ok();
  }

 private:
  Db db_;
  Statement stmt_;
};

}  // namespace

Result<std::unique_ptr<Backend>> OpenSqlite(const std::string& dir,
                                            const OpenOptions& options) {
  auto b = std::make_unique<SqliteBackend>();
  b->path_ = Path(dir);
  std::error_code ec;
  if (!std::filesystem::exists(b->path_, ec)) {
    return Status::MissingInput(dir + ": no SQLite database (no " +
                                kSqliteFile + ")");
  }
  FLATBENCH_RETURN_IF_ERROR(OpenChecked(b.get(), options));
  return std::unique_ptr<Backend>(std::move(b));
}

Result<std::unique_ptr<BulkLoader>> NewSqliteLoader(const std::string& dir) {
  auto loader = std::make_unique<SqliteLoader>(dir);
  FLATBENCH_RETURN_IF_ERROR(loader->Init());
  return std::unique_ptr<BulkLoader>(std::move(loader));
}

Result<std::unique_ptr<TableScan>> SqliteBackend::OpenScan(Table table) {
  auto scan = std::make_unique<SqliteScan>();
  FLATBENCH_RETURN_IF_ERROR(scan->Open(path_, table));
  return std::unique_ptr<TableScan>(std::move(scan));
}

namespace {

// SQLite's integrity_check text holds one problem a line (rows, and lines
// inside a row), with "*** in database main ***" headers. One line of it:
// the first problem and how many there are.
std::string FirstProblem(const std::string& text, int limit) {
  std::string first;
  int problems = 0;
  size_t at = 0;
  while (at <= text.size()) {
    size_t end = text.find_first_of("\n", at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
      line.pop_back();
    }
    if (line.empty() || line.rfind("***", 0) == 0) continue;
    if (problems++ == 0) first = line;
  }
  if (problems <= 1) return first;
  return first + " (and " + std::to_string(problems - 1) + " more" +
         (problems >= limit
              ? ", integrity_check stops at " + std::to_string(limit)
              : std::string()) +
         ")";
}

}  // namespace

Result<std::string> SqliteBackend::CheckIntegrity() {
  constexpr int kLimit = 10;
  FLATBENCH_ASSIGN_OR_RETURN(
      auto result,
      db_.QueryText("PRAGMA integrity_check(" + std::to_string(kLimit) + ")",
                    "\n"));
  if (result != "ok") {
    return Status::Corruption(
        path_ + ": integrity_check: " + FirstProblem(result, kLimit));
  }
  return std::string("integrity_check ok (SQLite keeps no checksums)");
}

}  // namespace flatbench::baselines
