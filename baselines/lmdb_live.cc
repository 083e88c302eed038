#include "baselines/lmdb_live.h"

#include <lmdb.h>

#include <filesystem>

#include "baselines/lmdb_env.h"
#include "baselines/lmdb_meta.h"
#include "baselines/lmdb_writer.h"

namespace flatbench::baselines {
namespace {

class LiveLmdbSession final : public ReadSession {
 public:
  LiveLmdbSession(MDB_txn* txn, const MDB_dbi* dbis) : txn_(txn), dbis_(dbis) {}
  ~LiveLmdbSession() override {
    if (cursor_ != nullptr) mdb_cursor_close(cursor_);
    mdb_txn_abort(txn_);
  }

  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    FLATBENCH_RETURN_IF_ERROR(Renew());
    MDB_val k{key.size(), const_cast<char*>(key.data())};
    MDB_val v;
    const int rc = mdb_get(txn_, dbis_[static_cast<int>(table)], &k, &v);
    *found = rc == MDB_SUCCESS;
    if (rc == MDB_NOTFOUND) return Status::Ok();
    if (rc != MDB_SUCCESS) return FromMdb(rc, "lmdb get");
    *value = std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
    return Status::Ok();
  }

  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    *count = 0;
    if (cursor_ != nullptr) mdb_cursor_close(cursor_);
    cursor_ = nullptr;
    FLATBENCH_RETURN_IF_ERROR(Renew());
    int rc = mdb_cursor_open(txn_, dbis_[static_cast<int>(table)], &cursor_);
    if (rc != MDB_SUCCESS) return FromMdb(rc, "lmdb cursor open");
    MDB_val k{start.size(), const_cast<char*>(start.data())};
    MDB_val v;
    rc = mdb_cursor_get(cursor_, &k, &v, MDB_SET_RANGE);
    while (rc == MDB_SUCCESS && *count < limit) {
      visitor->Visit(
          std::string_view(static_cast<const char*>(k.mv_data), k.mv_size),
          std::string_view(static_cast<const char*>(v.mv_data), v.mv_size));
      if (++*count < limit) rc = mdb_cursor_get(cursor_, &k, &v, MDB_NEXT);
    }
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
      return FromMdb(rc, "lmdb scan");
    }
    return Status::Ok();
  }

 private:
  // The last committed transaction's snapshot; the previous value views
  // end here, as ReadSession allows.
  Status Renew() {
    mdb_txn_reset(txn_);
    return FromMdb(mdb_txn_renew(txn_), "lmdb renew");
  }

  MDB_txn* txn_;
  const MDB_dbi* dbis_;
  MDB_cursor* cursor_ = nullptr;
};

class LiveLmdbBackend final : public Backend {
 public:
  LiveLmdbBackend(MDB_env* env, const MDB_dbi* dbis, std::string data_path)
      : env_(env), dbis_(dbis), data_path_(std::move(data_path)) {}
  std::string Name() const override { return "lmdb"; }
  Result<std::unique_ptr<ReadSession>> NewSession() override {
    MDB_txn* txn = nullptr;
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn), "lmdb txn"));
    return std::unique_ptr<ReadSession>(new LiveLmdbSession(txn, dbis_));
  }
  uint64_t ResidentMetadataBytes() const override { return 0; }
  Settings Describe() const override {
    return {{"environment", "one, two named databases, read and written"},
            {"open_flags", "MDB_NOSYNC | MDB_NORDAHEAD | MDB_NOTLS"},
            {"read_txn", "one per session, renewed before each read"},
            {"write_txn", "one per block"}};
  }
  std::vector<std::string> DataFiles(Table) const override {
    return {data_path_};
  }
  Result<uint64_t> CountPairs(Table table) const override {
    MDB_txn* txn = nullptr;
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn), "lmdb txn"));
    MDB_stat st;
    const int rc = mdb_stat(txn, dbis_[static_cast<int>(table)], &st);
    mdb_txn_abort(txn);
    FLATBENCH_RETURN_IF_ERROR(FromMdb(rc, "lmdb stat"));
    return static_cast<uint64_t>(st.ms_entries);
  }

 private:
  MDB_env* env_;
  const MDB_dbi* dbis_;
  std::string data_path_;
};

class LiveLmdbWriter final : public StoreWriter {
 public:
  LiveLmdbWriter(MDB_env* env, const MDB_dbi* dbis, std::string dir)
      : env_(env), dbis_(dbis), dir_(std::move(dir)) {}

  // An erase of a key already gone is a block applied before (StoreWriter).
  Status ApplyBlock(std::span<const KeyChange> changes) override {
    MDB_txn* txn = nullptr;
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_txn_begin(env_, nullptr, 0, &txn), dir_ + ": block"));
    const int rc = PutBlock(txn, dbis_, changes);
    if (rc != MDB_SUCCESS) {
      mdb_txn_abort(txn);
      return FromMdb(rc, dir_ + ": block (map of the writing pass)");
    }
    FLATBENCH_RETURN_IF_ERROR(FromMdb(mdb_txn_commit(txn), dir_ + ": block"));
    ++applied_;
    return Status::Ok();
  }
  Result<uint64_t> Checkpoint() override {
    FLATBENCH_RETURN_IF_ERROR(FromMdb(mdb_env_sync(env_, 1), dir_ + ": sync"));
    return applied_;
  }
  Status Finish() override { return Checkpoint().status(); }
  Settings Upkeep() const override {
    return {{"blocks_applied", std::to_string(applied_)}};
  }

 private:
  MDB_env* env_;
  const MDB_dbi* dbis_;
  std::string dir_;
  uint64_t applied_ = 0;
};

class LiveLmdb final : public LiveStore {
 public:
  Status Open(const std::string& dir) {
    const std::string data = dir + "/data.mdb";
    std::error_code ec;
    if (!std::filesystem::exists(data, ec)) {
      return Status::MissingInput(dir + ": no LMDB environment (no data.mdb)");
    }
    FLATBENCH_RETURN_IF_ERROR(CheckLmdbDataFile(data).status());
    const uint64_t bytes = std::filesystem::file_size(data, ec);
    if (ec) return Status::IOError(data + ": " + ec.message());
    FLATBENCH_RETURN_IF_ERROR(
        env_.Create(dir, MDB_NOSYNC | MDB_NORDAHEAD | MDB_NOTLS,
                    2 * bytes + (uint64_t{1} << 30)));
    MDB_txn* txn = nullptr;
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_txn_begin(env_.get(), nullptr, 0, &txn), dir));
    for (int t = 0; t < kNumTables; ++t) {
      const int rc = mdb_dbi_open(txn, kLmdbDbNames[t], 0, &dbis_[t]);
      if (rc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return FromMdb(rc, dir + ": open " + kLmdbDbNames[t]);
      }
    }
    FLATBENCH_RETURN_IF_ERROR(FromMdb(mdb_txn_commit(txn), dir));
    backend_ = std::make_unique<LiveLmdbBackend>(env_.get(), dbis_, data);
    writer_ = std::make_unique<LiveLmdbWriter>(env_.get(), dbis_, dir);
    return Status::Ok();
  }
  Backend& backend() override { return *backend_; }
  StoreWriter& writer() override { return *writer_; }

 private:
  LmdbEnv env_;  // Declared first: closed after the halves that use it.
  MDB_dbi dbis_[kNumTables] = {0, 0};
  std::unique_ptr<LiveLmdbBackend> backend_;
  std::unique_ptr<LiveLmdbWriter> writer_;
};

}  // namespace

Result<std::unique_ptr<LiveStore>> OpenLmdbLive(const std::string& dir,
                                                const OpenOptions&,
                                                const WriterOptions&) {
  auto live = std::make_unique<LiveLmdb>();
  FLATBENCH_RETURN_IF_ERROR(live->Open(dir));
  return std::unique_ptr<LiveStore>(std::move(live));
}

}  // namespace flatbench::baselines
