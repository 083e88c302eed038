#include "baselines/lmdb_writer.h"

#include <lmdb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "baselines/lmdb_env.h"
#include "baselines/lmdb_meta.h"

namespace flatbench::baselines {

int PutBlock(MDB_txn* txn, const MDB_dbi* dbis,
             std::span<const KeyChange> changes) {
  for (const KeyChange& c : changes) {
    MDB_val k{c.key.size(), const_cast<char*>(c.key.data())};
    const MDB_dbi dbi = dbis[static_cast<int>(c.table)];
    int rc;
    if (c.erase) {
      rc = mdb_del(txn, dbi, &k, nullptr);
      if (rc == MDB_NOTFOUND) rc = MDB_SUCCESS;
    } else {
      MDB_val v{c.value.size(), const_cast<char*>(c.value.data())};
      rc = mdb_put(txn, dbi, &k, &v, 0);
    }
    if (rc != MDB_SUCCESS) return rc;
  }
  return MDB_SUCCESS;
}
namespace {

// A slot's value: 32 bytes (RESEARCH.md, "Dataset").
constexpr size_t kSlotValueSize = 32;
// The storage table's leaf fill that the stream's random inserts settle at,
// measured over long streams (RESEARCH.md, section 11).
constexpr double kLmdbSettledFill = 0.68;

class LmdbWriter final : public StoreWriter {
 public:
  Status Open(const std::string& dir) {
    dir_ = dir;
    std::error_code ec;
    if (!std::filesystem::exists(dir + "/data.mdb", ec)) {
      return Status::MissingInput(dir + ": no LMDB environment (no data.mdb)");
    }
    FLATBENCH_RETURN_IF_ERROR(CheckLmdbDataFile(dir + "/data.mdb").status());
    FLATBENCH_RETURN_IF_ERROR(env_.Create(dir, MDB_NOSYNC, /*map_size=*/0));
    MDB_txn* txn = nullptr;
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_txn_begin(env_.get(), nullptr, 0, &txn), dir));
    for (int t = 0; t < kNumTables; ++t) {
      int rc = mdb_dbi_open(txn, kLmdbDbNames[t], 0, &dbis_[t]);
      if (rc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return FromMdb(rc, dir + ": open " + kLmdbDbNames[t]);
      }
    }
    return FromMdb(mdb_txn_commit(txn), dir + ": open");
  }

  Status ApplyBlock(std::span<const KeyChange> changes) override {
    int rc = Apply(changes);
    if (rc == MDB_MAP_FULL) {
      MDB_envinfo info;
      mdb_env_info(env_.get(), &info);
      FLATBENCH_RETURN_IF_ERROR(
          FromMdb(mdb_env_set_mapsize(env_.get(),
                                      info.me_mapsize + info.me_mapsize / 2),
                  dir_ + ": grow the map"));
      rc = Apply(changes);
    }
    FLATBENCH_RETURN_IF_ERROR(FromMdb(rc, dir_ + ": block"));
    ++applied_;
    return Status::Ok();
  }

  Result<uint64_t> Checkpoint() override {
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_env_sync(env_.get(), 1), dir_ + ": sync"));
    return applied_;
  }

  // The storage table's leaf fill is within 5 points of the fill random
  // inserts settle at (kLmdbSettledFill), on its way back: from the bulk
  // load's full pages it falls through that band as pages split, to a
  // trough below it (this writer saw it), then rises back as the halves
  // fill.
  Steadiness Steady() override {
    Steadiness s;
    s.applies = true;
    const double fill = StorageLeafFill();
    if (fill <= 0) {
      s.what = "the storage table's leaf fill could not be read";
      return s;
    }
    trough_ = std::min(trough_, fill);
    s.met = trough_ < kLmdbSettledFill - 0.05 &&
            std::abs(fill - kLmdbSettledFill) <= 0.05;
    char buf[160];
    std::snprintf(buf, sizeof(buf),
                  "storage leaf fill %.1f%%, settles at %.1f%%", 100 * fill,
                  100 * kLmdbSettledFill);
    s.what = buf;
    return s;
  }

  Status Finish() override {
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_env_sync(env_.get(), 1), dir_ + ": sync"));
    FLATBENCH_ASSIGN_OR_RETURN(upkeep_, Shape());
    return Status::Ok();
  }

  Settings Upkeep() const override { return upkeep_; }

 private:
  // The storage table's leaf fill: its entries' bytes on leaf pages (each a
  // node header, key and value, and its 2-byte slot, every slot's size
  // fixed) over the leaf pages' room (a page less its header). 0 when its
  // statistics cannot be read.
  double StorageLeafFill() const {
    MDB_txn* txn = nullptr;
    if (mdb_txn_begin(env_.get(), nullptr, MDB_RDONLY, &txn) != MDB_SUCCESS) {
      return 0;
    }
    MDB_stat st;
    const int rc = mdb_stat(txn, dbis_[1], &st);
    mdb_txn_abort(txn);
    if (rc != MDB_SUCCESS || st.ms_leaf_pages == 0) return 0;
    constexpr double kSlot = 2 + 8 + kStorageKeySize + kSlotValueSize;
    constexpr double kPageHeader = 16;
    return static_cast<double>(st.ms_entries) * kSlot /
           (static_cast<double>(st.ms_leaf_pages) *
            (static_cast<double>(st.ms_psize) - kPageHeader));
  }

  // One transaction; an LMDB code (the transaction aborted on failure). An
  // erase of a key already gone is a block applied before (StoreWriter).
  int Apply(std::span<const KeyChange> changes) {
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env_.get(), nullptr, 0, &txn);
    if (rc != MDB_SUCCESS) return rc;
    rc = PutBlock(txn, dbis_, changes);
    if (rc != MDB_SUCCESS) {
      mdb_txn_abort(txn);
      return rc;
    }
    return mdb_txn_commit(txn);
  }

  Result<Settings> Shape() const {
    // Before the transaction below: a thread holds one read transaction.
    const double leaf_fill = StorageLeafFill();
    MDB_envinfo info;
    MDB_stat env_stat;
    mdb_env_info(env_.get(), &info);
    mdb_env_stat(env_.get(), &env_stat);
    MDB_txn* txn = nullptr;
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_txn_begin(env_.get(), nullptr, MDB_RDONLY, &txn), dir_));
    Settings s;
    s.emplace_back("page_size", std::to_string(env_stat.ms_psize));
    s.emplace_back("pages", std::to_string(info.me_last_pgno + 1));
    // The free list (database 0): each record holds a count of page
    // numbers, then the numbers.
    uint64_t free_pages = 0;
    MDB_cursor* cur = nullptr;
    int rc = mdb_cursor_open(txn, 0, &cur);
    MDB_val k, v;
    while (rc == MDB_SUCCESS &&
           (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == MDB_SUCCESS) {
      if (v.mv_size >= sizeof(size_t)) {
        free_pages += *static_cast<const size_t*>(v.mv_data);
      }
    }
    if (cur != nullptr) mdb_cursor_close(cur);
    s.emplace_back("free_pages", std::to_string(free_pages));
    for (int t = 0; t < kNumTables; ++t) {
      MDB_stat st;
      if (mdb_stat(txn, dbis_[t], &st) != MDB_SUCCESS) continue;
      const std::string p = std::string(kLmdbDbNames[t]) + ".";
      s.emplace_back(p + "depth", std::to_string(st.ms_depth));
      s.emplace_back(p + "branch_pages", std::to_string(st.ms_branch_pages));
      s.emplace_back(p + "leaf_pages", std::to_string(st.ms_leaf_pages));
      s.emplace_back(p + "overflow_pages",
                     std::to_string(st.ms_overflow_pages));
    }
    char fill[32];
    std::snprintf(fill, sizeof(fill), "%.4f", leaf_fill);
    s.emplace_back("storage.leaf_fill", fill);
    mdb_txn_abort(txn);
    if (rc != MDB_NOTFOUND) return FromMdb(rc, dir_ + ": free list");
    return s;
  }

  std::string dir_;
  LmdbEnv env_;
  MDB_dbi dbis_[kNumTables] = {0, 0};
  uint64_t applied_ = 0;
  double trough_ = 1;  // The lowest storage leaf fill Steady has seen.
  Settings upkeep_;
};

}  // namespace

Result<std::unique_ptr<StoreWriter>> NewLmdbWriter(const std::string& dir) {
  auto w = std::make_unique<LmdbWriter>();
  FLATBENCH_RETURN_IF_ERROR(w->Open(dir));
  return std::unique_ptr<StoreWriter>(std::move(w));
}

}  // namespace flatbench::baselines
