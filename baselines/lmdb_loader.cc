// The LMDB bulk loader: pairs appended in key order (MDB_APPEND), a
// million per write transaction, the environment synced at the end.
#include <lmdb.h>

#include "baselines/lmdb_backend.h"
#include "baselines/lmdb_env.h"
#include "baselines/lmdb_meta.h"

namespace flatbench::baselines {
namespace {

class LmdbLoader : public BulkLoader {
 public:
  Status Init(const std::string& dir, size_t map_size) {
    dir_ = dir;
    FLATBENCH_RETURN_IF_ERROR(env_.Create(dir, MDB_NOSYNC, map_size));
    return Begin();
  }
  ~LmdbLoader() override {
    if (txn_ != nullptr) mdb_txn_abort(txn_);
  }
  Status Add(Table table, std::string_view key,
             std::string_view value) override {
    MDB_val k{key.size(), const_cast<char*>(key.data())};
    MDB_val v{value.size(), const_cast<char*>(value.data())};
    int rc = mdb_put(txn_, dbis_[static_cast<int>(table)], &k, &v, MDB_APPEND);
    if (rc == MDB_KEYEXIST) {
      return Status::Corruption(std::string("lmdb load ") + TableName(table) +
                                ": key not ascending");
    }
    FLATBENCH_RETURN_IF_ERROR(FromMdb(rc, dir_ + ": put"));
    if (++in_txn_ >= kPairsPerTxn) {
      int c = mdb_txn_commit(txn_);
      txn_ = nullptr;
      FLATBENCH_RETURN_IF_ERROR(FromMdb(c, dir_ + ": commit"));
      return Begin();
    }
    return Status::Ok();
  }
  Status Finish() override {
    int c = mdb_txn_commit(txn_);
    txn_ = nullptr;
    FLATBENCH_RETURN_IF_ERROR(FromMdb(c, dir_ + ": commit"));
    return FromMdb(mdb_env_sync(env_.get(), 1), dir_ + ": sync");
  }

 private:
  static constexpr uint64_t kPairsPerTxn = 1'000'000;
  Status Begin() {
    in_txn_ = 0;
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_txn_begin(env_.get(), nullptr, 0, &txn_), dir_));
    for (int t = 0; t < kNumTables; ++t) {
      FLATBENCH_RETURN_IF_ERROR(
          FromMdb(mdb_dbi_open(txn_, kLmdbDbNames[t], MDB_CREATE, &dbis_[t]),
                  dir_ + ": open " + kLmdbDbNames[t]));
    }
    return Status::Ok();
  }
  std::string dir_;
  LmdbEnv env_;
  MDB_txn* txn_ = nullptr;
  MDB_dbi dbis_[kNumTables] = {0, 0};
  uint64_t in_txn_ = 0;
};

}  // namespace

Result<std::unique_ptr<BulkLoader>> NewLmdbLoader(const std::string& dir,
                                                  uint64_t expected_pairs,
                                                  uint64_t expected_bytes) {
  // Appending fills leaf pages nearly full; twice the raw bytes plus the
  // per-node headers and a fixed reserve leaves room for branch pages.
  uint64_t map = 2 * (expected_bytes + 16 * expected_pairs) + (64ULL << 20);
  map = (map + 4095) / 4096 * 4096;
  auto loader = std::make_unique<LmdbLoader>();
  FLATBENCH_RETURN_IF_ERROR(loader->Init(dir, map));
  return std::unique_ptr<BulkLoader>(std::move(loader));
}

}  // namespace flatbench::baselines
