#include "baselines/sqlite_writer.h"

#include <filesystem>

#include "baselines/sqlite_backend.h"
#include "baselines/sqlite_db.h"

namespace flatbench::baselines {
namespace {

// One connection writes: the cache each reader connection has (32 MiB).
constexpr int64_t kWriterCacheBytes = 32LL << 20;

class SqliteWriter final : public StoreWriter {
 public:
  Status Open(const std::string& dir) {
    path_ = dir + "/" + kSqliteFile;
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) {
      return Status::MissingInput(dir + ": no SQLite database (no " +
                                  kSqliteFile + ")");
    }
    FLATBENCH_RETURN_IF_ERROR(db_.OpenReadWrite(path_));
    // synchronous is per connection, not kept in the file: FULL, as the
    // load ends with, so that a commit is durable when it returns (in WAL
    // mode the log is synced at every commit; in a rollback-journal mode
    // the database file is). The journal mode is the file's own (the load
    // leaves WAL), left as it is.
    FLATBENCH_RETURN_IF_ERROR(
        db_.Exec("PRAGMA synchronous = FULL; PRAGMA mmap_size = 0; "
                 "PRAGMA cache_size = -" +
                 std::to_string(kWriterCacheBytes / 1024)));
    FLATBENCH_ASSIGN_OR_RETURN(journal_mode_,
                               db_.QueryText("PRAGMA journal_mode"));
    for (int t = 0; t < kNumTables; ++t) {
      const std::string name = TableName(static_cast<Table>(t));
      FLATBENCH_RETURN_IF_ERROR(db_.Prepare(
          "INSERT OR REPLACE INTO " + name + " (k, v) VALUES (?1, ?2)",
          &put_[t]));
      FLATBENCH_RETURN_IF_ERROR(
          db_.Prepare("DELETE FROM " + name + " WHERE k = ?1", &erase_[t]));
    }
    return Status::Ok();
  }

  // One transaction: the block commits whole or not at all. A writer
  // dropped without Finish (an error, a signal) just closes the
  // connection: every committed block is durable already.
  Status ApplyBlock(std::span<const KeyChange> changes) override {
    FLATBENCH_RETURN_IF_ERROR(db_.Exec("BEGIN"));
    Status st;
    for (const KeyChange& c : changes) {
      st = Apply(c);
      if (!st.ok()) break;
    }
    if (st.ok()) st = db_.Exec("COMMIT");
    if (!st.ok()) {
      static_cast<void>(db_.Exec("ROLLBACK"));
      return st;
    }
    ++applied_;
    return Status::Ok();
  }

  // Every committed block is durable (synchronous=FULL, see Open).
  Result<uint64_t> Checkpoint() override { return applied_; }

  Status Finish() override {
    if (journal_mode_ == "wal") {
      // Every page back in the database file and an empty log, which the
      // close removes: the folder as the load leaves it. A busy checkpoint
      // (another connection reading) would leave pages in the log.
      FLATBENCH_ASSIGN_OR_RETURN(
          uint64_t busy, db_.QueryCount("PRAGMA wal_checkpoint(TRUNCATE)"));
      if (busy != 0) {
        return Status::IOError(path_ +
                               ": wal_checkpoint(TRUNCATE) could not "
                               "finish: another connection holds the "
                               "database");
      }
    }
    FLATBENCH_ASSIGN_OR_RETURN(upkeep_, Shape());
    for (int t = 0; t < kNumTables; ++t) {
      put_[t].Finalize();
      erase_[t].Finalize();
    }
    return db_.Close();
  }

  Settings Upkeep() const override { return upkeep_; }

 private:
  // One change; an erase of a key already gone deletes no row, which is a
  // block applied again (StoreWriter).
  Status Apply(const KeyChange& c) {
    Statement& s = (c.erase ? erase_ : put_)[static_cast<int>(c.table)];
    FLATBENCH_RETURN_IF_ERROR(s.BindBlob(1, c.key));
    if (!c.erase) FLATBENCH_RETURN_IF_ERROR(s.BindBlob(2, c.value));
    const int rc = s.Step();
    s.Reset();
    if (rc != SQLITE_DONE) {
      return db_.Error(rc, std::string(c.erase ? "delete from " : "put in ") +
                               TableName(c.table));
    }
    return Status::Ok();
  }

  Result<Settings> Shape() const {
    Settings s;
    for (const char* pragma : {"page_size", "page_count", "freelist_count"}) {
      FLATBENCH_ASSIGN_OR_RETURN(
          uint64_t v, db_.QueryCount(std::string("PRAGMA ") + pragma));
      s.emplace_back(pragma, std::to_string(v));
    }
    s.emplace_back("journal_mode", journal_mode_);
    return s;
  }

  // Declared first, destroyed last: the statements are finalized before
  // the connection closes.
  Db db_;
  Statement put_[kNumTables];
  Statement erase_[kNumTables];
  std::string path_;
  std::string journal_mode_;
  uint64_t applied_ = 0;
  Settings upkeep_;
};

}  // namespace

Result<std::unique_ptr<StoreWriter>> NewSqliteWriter(const std::string& dir) {
  auto w = std::make_unique<SqliteWriter>();
  FLATBENCH_RETURN_IF_ERROR(w->Open(dir));
  return std::unique_ptr<StoreWriter>(std::move(w));
}

}  // namespace flatbench::baselines
