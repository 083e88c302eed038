// The LMDB reader: its session, the backend and the ordered walk. The
// environment is lmdb_env.h's, the loader lmdb_loader.cc's; the meta check
// and the branch-page walk live in lmdb_meta.cc and lmdb_pages.cc.
#include "baselines/lmdb_backend.h"

#include <lmdb.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "baselines/lmdb_advise.h"
#include "baselines/lmdb_env.h"
#include "baselines/lmdb_meta.h"
#include "baselines/lmdb_pages.h"
#include "baselines/lmdb_path.h"
#include "common/status.h"

namespace flatbench::baselines {
namespace {

class LmdbSession : public ReadSession {
 public:
  // `advisor`: with OpenOptions::batch_prefetch, what advises a batch's
  // leaf pages (lmdb_advise.h); null, MultiGet is the loop alone.
  LmdbSession(MDB_txn* txn, const MDB_dbi* dbis, const LmdbAdvisor* advisor)
      : txn_(txn), dbis_(dbis), advisor_(advisor) {}
  ~LmdbSession() override {
    for (MDB_cursor* c : cursors_) {
      if (c != nullptr) mdb_cursor_close(c);
    }
    mdb_txn_abort(txn_);
  }
  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    MDB_val k{key.size(), const_cast<char*>(key.data())};
    MDB_val v;
    int rc = mdb_get(txn_, dbis_[static_cast<int>(table)], &k, &v);
    if (rc == MDB_NOTFOUND) {
      *found = false;
      return Status::Ok();
    }
    if (rc != MDB_SUCCESS) return FromMdb(rc, "lmdb get");
    *found = true;
    *value = std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
    return Status::Ok();
  }

  // No batch API: a loop of mdb_get, after advising the batch's leaf
  // pages when asked. Values point into the map for the transaction's
  // life, so nothing is copied.
  Status MultiGet(Table table, std::span<const std::string_view> keys,
                  std::span<GetResult> results) override {
    if (keys.size() != results.size()) {
      return ReadSession::MultiGet(table, keys, results);  // its kUsage
    }
    const int t = static_cast<int>(table);
    if (advisor_ != nullptr) {
      if (!trees_known_[t]) {
        auto tree = LmdbTreeOf(txn_, kLmdbDbNames[t]);
        // Without the tree, no advice: the loop still answers.
        if (tree.ok()) trees_[t] = tree.value();
        trees_known_[t] = true;
      }
      const uint64_t advised = advisor_->Advise(trees_[t], keys);
      if (advised != 0) {
        ++batch_io_.submissions;
        batch_io_.reads += advised;
        batch_io_.max_depth = std::max(batch_io_.max_depth, advised);
      }
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      GetResult& r = results[i];
      r.value = {};
      r.status = Get(table, keys[i], &r.found, &r.value);
      if (!r.status.ok()) r.found = false;
    }
    ++batch_io_.batches;
    return Status::Ok();
  }

  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    *count = 0;
    const int t = static_cast<int>(table);
    if (cursors_[t] == nullptr) {
      int rc = mdb_cursor_open(txn_, dbis_[t], &cursors_[t]);
      if (rc != MDB_SUCCESS) return FromMdb(rc, "lmdb cursor open");
    }
    MDB_val k{start.size(), const_cast<char*>(start.data())};
    MDB_val v;
    int rc = mdb_cursor_get(cursors_[t], &k, &v, MDB_SET_RANGE);
    while (rc == MDB_SUCCESS && *count < limit) {
      visitor->Visit(
          std::string_view(static_cast<const char*>(k.mv_data), k.mv_size),
          std::string_view(static_cast<const char*>(v.mv_data), v.mv_size));
      ++*count;
      if (*count < limit) rc = mdb_cursor_get(cursors_[t], &k, &v, MDB_NEXT);
    }
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
      return FromMdb(rc, "lmdb scan");
    }
    return Status::Ok();
  }

 private:
  MDB_txn* txn_;
  const MDB_dbi* dbis_;
  const LmdbAdvisor* advisor_;
  LmdbTree trees_[kNumTables];
  bool trees_known_[kNumTables] = {false, false};
  // Read-only transaction cursors must be closed before the transaction
  // ends; see the destructor.
  MDB_cursor* cursors_[kNumTables] = {nullptr, nullptr};
};

class LmdbBackend : public Backend {
 public:
  std::string Name() const override { return "lmdb"; }
  Result<std::unique_ptr<TableScan>> OpenScan(Table table) override;
  Result<std::unique_ptr<ReadSession>> NewSession() override {
    MDB_txn* txn = nullptr;
    FLATBENCH_RETURN_IF_ERROR(FromMdb(
        mdb_txn_begin(env_.get(), nullptr, MDB_RDONLY, &txn), "lmdb txn"));
    return std::unique_ptr<ReadSession>(
        new LmdbSession(txn, dbis_, advisor_ ? &*advisor_ : nullptr));
  }
  uint64_t ResidentMetadataBytes() const override { return 0; }
  // LMDB keeps no checksums and has no check of its own: every page of both
  // trees, read with pread and checked as get checks the pages on a key's
  // path (lmdb_path.h), so that verify refuses every page damage that get
  // would refuse for some key.
  Result<std::string> CheckIntegrity() override {
    std::vector<LmdbTreeSpec> dbs;
    for (int t = 0; t < kNumTables; ++t) {
      dbs.push_back({kLmdbDbNames[t], KeySize(static_cast<Table>(t))});
    }
    FLATBENCH_ASSIGN_OR_RETURN(const uint64_t pages,
                               CheckLmdbTrees(data_path_, dbs));
    return "every page of both trees checked (" + std::to_string(pages) +
           " pages; LMDB keeps no checksums)";
  }
  // mdb_stat of `table`'s database, in a short read-only transaction.
  Result<MDB_stat> Stat(Table table) const {
    MDB_txn* txn = nullptr;
    FLATBENCH_RETURN_IF_ERROR(FromMdb(
        mdb_txn_begin(env_.get(), nullptr, MDB_RDONLY, &txn), "lmdb txn"));
    MDB_stat st;
    int rc = mdb_stat(txn, dbis_[static_cast<int>(table)], &st);
    mdb_txn_abort(txn);
    FLATBENCH_RETURN_IF_ERROR(FromMdb(rc, "lmdb stat"));
    return st;
  }
  Result<uint64_t> CountPairs(Table table) const override {
    FLATBENCH_ASSIGN_OR_RETURN(MDB_stat st, Stat(table));
    return static_cast<uint64_t>(st.ms_entries);
  }
  Result<ReadGeometry> Geometry(Table table) const override {
    FLATBENCH_ASSIGN_OR_RETURN(MDB_stat st, Stat(table));
    ReadGeometry g;
    g.pairs = st.ms_entries;
    g.data_units = st.ms_leaf_pages + st.ms_overflow_pages;
    g.data_bytes = g.data_units * st.ms_psize;
    g.data_page_aligned = true;
    g.index_bytes = uint64_t{st.ms_branch_pages} * st.ms_psize;
    g.index_levels = st.ms_depth > 1 ? st.ms_depth - 1 : 0;
    return g;
  }
  Settings Describe() const override {
    return {{"environment", "one, two named databases"},
            {"open_flags", "MDB_RDONLY | MDB_NORDAHEAD | MDB_NOTLS"},
            {"read_txn", "one long-lived read-only transaction per thread"},
            {"batch", advisor_ ? "madvise(MADV_WILLNEED) of each key's leaf "
                                 "page, then a loop of mdb_get"
                               : "a loop of mdb_get"},
            {"load", "MDB_APPEND, ascending keys, commit every 1M pairs"},
            {"map_size", std::to_string(map_size_)},
            {"preload", preload_}};
  }
  std::vector<std::string> DataFiles(Table /*table*/) const override {
    return {data_path_};
  }

  LmdbEnv env_;
  MDB_dbi dbis_[kNumTables] = {0, 0};
  size_t map_size_ = 0;
  std::string data_path_;
  std::string preload_ = "nothing (lazy metadata)";
  std::optional<LmdbAdvisor> advisor_;
};

// Cold mode: read the meta and branch pages at open, as the arena reads its
// index and filter and RocksDB its index and filter blocks.
Status PreloadMetadata(LmdbBackend* b) {
  MDB_txn* txn = nullptr;
  FLATBENCH_RETURN_IF_ERROR(FromMdb(
      mdb_txn_begin(b->env_.get(), nullptr, MDB_RDONLY, &txn), b->data_path_));
  auto pre = PreloadBranchPages(b->env_.get(), txn, b->data_path_, kLmdbDbNames,
                                kNumTables);
  mdb_txn_abort(txn);
  if (!pre.ok()) return pre.status();
  b->preload_ =
      "meta and branch pages read at open: " + std::to_string(pre->pages) +
      " pages, " + std::to_string(pre->bytes) + " bytes";
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Backend>> OpenLmdb(const std::string& dir,
                                          const OpenOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(dir + "/data.mdb", ec) && !ec) {
    return Status::MissingInput(dir + ": no LMDB environment (no data.mdb)");
  }
  // LMDB maps the size its meta pages claim; a shorter file would fault.
  FLATBENCH_RETURN_IF_ERROR(CheckLmdbDataFile(dir + "/data.mdb").status());
  auto b = std::make_unique<LmdbBackend>();
  FLATBENCH_RETURN_IF_ERROR(b->env_.Create(
      dir, MDB_RDONLY | MDB_NORDAHEAD | MDB_NOTLS, /*map_size=*/0));
  MDB_envinfo info;
  mdb_env_info(b->env_.get(), &info);
  b->map_size_ = info.me_mapsize;
  MDB_txn* txn = nullptr;
  FLATBENCH_RETURN_IF_ERROR(
      FromMdb(mdb_txn_begin(b->env_.get(), nullptr, MDB_RDONLY, &txn), dir));
  for (int t = 0; t < kNumTables; ++t) {
    int rc = mdb_dbi_open(txn, kLmdbDbNames[t], 0, &b->dbis_[t]);
    if (rc != MDB_SUCCESS) {
      mdb_txn_abort(txn);
      // The environment exists, so a table missing from it is damage.
      if (rc == MDB_NOTFOUND) {
        return Status::Corruption(dir + "/data.mdb: no database '" +
                                  kLmdbDbNames[t] + "' in it");
      }
      return FromMdb(rc, dir + ": open database " + kLmdbDbNames[t]);
    }
  }
  FLATBENCH_RETURN_IF_ERROR(FromMdb(mdb_txn_commit(txn), dir));
  b->data_path_ = dir + "/data.mdb";
  if (options.batch_prefetch) {
    MDB_stat env_stat;
    std::error_code size_ec;
    const uint64_t file_bytes =
        std::filesystem::file_size(b->data_path_, size_ec);
    if (!size_ec && mdb_env_stat(b->env_.get(), &env_stat) == MDB_SUCCESS &&
        env_stat.ms_psize != 0) {
      const uint64_t pages = file_bytes / env_stat.ms_psize;
      MDB_txn* base_txn = nullptr;
      FLATBENCH_RETURN_IF_ERROR(FromMdb(
          mdb_txn_begin(b->env_.get(), nullptr, MDB_RDONLY, &base_txn), dir));
      auto base =
          LmdbMapBase(base_txn, kLmdbDbNames[0], env_stat.ms_psize, pages);
      mdb_txn_abort(base_txn);
      // Without the map's address, no advice: batches are the loop alone.
      if (base.ok()) {
        b->advisor_.emplace(base.value(), pages, env_stat.ms_psize);
      }
    }
  }
  if (!options.lazy_metadata) {
    FLATBENCH_RETURN_IF_ERROR(PreloadMetadata(b.get()));
  }
  return std::unique_ptr<Backend>(std::move(b));
}

namespace {

class LmdbScan : public TableScan {
 public:
  ~LmdbScan() override {
    if (cursor_ != nullptr) mdb_cursor_close(cursor_);
    if (txn_ != nullptr) mdb_txn_abort(txn_);
  }
  Status Open(MDB_env* env, MDB_dbi dbi) {
    FLATBENCH_RETURN_IF_ERROR(FromMdb(
        mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn_), "lmdb scan txn"));
    return FromMdb(mdb_cursor_open(txn_, dbi, &cursor_), "lmdb scan cursor");
  }
  Status Next(bool* valid, std::string_view* key,
              std::string_view* value) override {
    MDB_val k, v;
    int rc = mdb_cursor_get(cursor_, &k, &v, started_ ? MDB_NEXT : MDB_FIRST);
    started_ = true;
    *valid = rc == MDB_SUCCESS;
    if (rc == MDB_NOTFOUND) return Status::Ok();
    FLATBENCH_RETURN_IF_ERROR(FromMdb(rc, "lmdb scan"));
    *key = std::string_view(static_cast<const char*>(k.mv_data), k.mv_size);
    *value = std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
    return Status::Ok();
  }

 private:
  MDB_txn* txn_ = nullptr;
  MDB_cursor* cursor_ = nullptr;
  bool started_ = false;
};

}  // namespace

Result<std::unique_ptr<TableScan>> LmdbBackend::OpenScan(Table table) {
  auto scan = std::make_unique<LmdbScan>();
  FLATBENCH_RETURN_IF_ERROR(
      scan->Open(env_.get(), dbis_[static_cast<int>(table)]));
  return std::unique_ptr<TableScan>(std::move(scan));
}

std::string LmdbVersion() { return mdb_version(nullptr, nullptr, nullptr); }

}  // namespace flatbench::baselines
