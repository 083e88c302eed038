// The RocksDB reader and loader. One file, over 300 lines, because the
// session, the backend, the ordered walk and the SST loader share the
// options and the status mapping; the options are rocksdb_options.cc and the
// read geometry rocksdb_geometry.cc.
#include "baselines/rocksdb_backend.h"

#include <rocksdb/db.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/table_properties.h>
#include <rocksdb/version.h>

#include <filesystem>
#include <vector>

#include "baselines/rocksdb_geometry.h"
#include "baselines/rocksdb_options.h"
#include "baselines/rocksdb_read_cost.h"
#include "baselines/rocksdb_sst_writer.h"

namespace flatbench::baselines {
namespace {

class RocksSession : public ReadSession {
 public:
  // `snapshot`: read through one snapshot taken now (a quiet store's
  // reads); without, each Get reads the latest committed batch (a store
  // that takes blocks while it is read).
  RocksSession(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* const* cfs,
               bool snapshot)
      : db_(db), cfs_(cfs), snapshot_(snapshot ? db->GetSnapshot() : nullptr) {
    read_.snapshot = snapshot_;
  }
  ~RocksSession() override {
    for (auto& it : iterators_) it.reset();  // Before their snapshot goes.
    if (snapshot_ != nullptr) db_->ReleaseSnapshot(snapshot_);
  }
  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    pinned_.Reset();
    rocksdb::Status s =
        db_->Get(read_, cfs_[static_cast<int>(table)],
                 rocksdb::Slice(key.data(), key.size()), &pinned_);
    if (s.IsNotFound()) {
      *found = false;
      return Status::Ok();
    }
    if (!s.ok()) return FromRocks(s, "rocksdb get");
    *found = true;
    *value = std::string_view(pinned_.data(), pinned_.size());
    return Status::Ok();
  }

  // DB::MultiGet with the session's read options (those of Get): it
  // batches the filter and index probes of the keys that share an SST
  // file, and reads their data blocks with one MultiRead per file. Without
  // io_uring (Debian's build is not linked with liburing), the POSIX file's
  // MultiRead is a pread loop: one block after another (RESEARCH.md,
  // "Batched lookups").
  Status MultiGet(Table table, std::span<const std::string_view> keys,
                  std::span<GetResult> results) override {
    if (keys.size() != results.size()) {
      return ReadSession::MultiGet(table, keys, results);  // its kUsage
    }
    const size_t n = keys.size();
    slices_.resize(n);
    statuses_.resize(n);
    if (values_.size() < n) values_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      slices_[i] = rocksdb::Slice(keys[i].data(), keys[i].size());
      values_[i].Reset();
    }
    db_->MultiGet(read_, cfs_[static_cast<int>(table)], n, slices_.data(),
                  values_.data(), statuses_.data(), /*sorted_input=*/false);
    for (size_t i = 0; i < n; ++i) {
      GetResult& r = results[i];
      r.found = false;
      r.value = {};
      r.status = Status::Ok();
      if (statuses_[i].IsNotFound()) continue;
      if (!statuses_[i].ok()) {
        r.status = FromRocks(statuses_[i], "rocksdb multiget");
        continue;
      }
      r.found = true;
      r.value = std::string_view(values_[i].data(), values_[i].size());
    }
    ++batch_io_.batches;
    return Status::Ok();
  }

  // The perf context's counts (rocksdb_read_cost.h), on this thread.
  bool StartReadCost() override {
    cost_.Start();
    return true;
  }
  ReadCost TakeReadCost() override { return cost_.Take(); }

  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    *count = 0;
    const int t = static_cast<int>(table);
    // One iterator per table, re-seeked for each page, as an application
    // paging through a table would hold it; it reads the session's
    // snapshot.
    if (iterators_[t] == nullptr) {
      iterators_[t].reset(db_->NewIterator(read_, cfs_[t]));
    }
    rocksdb::Iterator* it = iterators_[t].get();
    it->Seek(rocksdb::Slice(start.data(), start.size()));
    for (; *count < limit && it->Valid(); it->Next()) {
      const rocksdb::Slice k = it->key();
      const rocksdb::Slice v = it->value();
      visitor->Visit(std::string_view(k.data(), k.size()),
                     std::string_view(v.data(), v.size()));
      ++*count;
    }
    if (!it->status().ok()) return FromRocks(it->status(), "rocksdb scan");
    return Status::Ok();
  }

 private:
  rocksdb::DB* db_;
  rocksdb::ColumnFamilyHandle* const* cfs_;
  const rocksdb::Snapshot* snapshot_;
  rocksdb::ReadOptions read_;
  rocksdb::PinnableSlice pinned_;
  // MultiGet's arrays, reused from batch to batch.
  std::vector<rocksdb::Slice> slices_;
  std::vector<rocksdb::PinnableSlice> values_;
  std::vector<rocksdb::Status> statuses_;
  std::unique_ptr<rocksdb::Iterator> iterators_[kNumTables];
  RocksReadCost cost_;
};

class RocksBackend : public Backend {
 public:
  RocksBackend(std::unique_ptr<rocksdb::DB> db,
               std::vector<rocksdb::ColumnFamilyHandle*> handles, bool lazy,
               std::vector<std::shared_ptr<rocksdb::Cache>> caches,
               bool snapshot = true)
      : db_(std::move(db)),
        handles_(std::move(handles)),
        lazy_(lazy),
        caches_(std::move(caches)),
        snapshot_(snapshot) {
    tables_[0] = handles_[1];
    tables_[1] = handles_[2];
  }
  ~RocksBackend() override {
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
    db_->Close().PermitUncheckedError();
  }
  std::string Name() const override { return "rocksdb"; }
  Result<std::unique_ptr<TableScan>> OpenScan(Table table) override;
  Result<std::string> CheckIntegrity() override;
  Result<std::unique_ptr<ReadSession>> NewSession() override {
    return std::unique_ptr<ReadSession>(
        new RocksSession(db_.get(), tables_, snapshot_));
  }
  uint64_t ResidentMetadataBytes() const override {
    uint64_t total = 0;
    for (auto* h : tables_) {
      uint64_t v = 0;
      if (db_->GetIntProperty(
              h, rocksdb::DB::Properties::kEstimateTableReadersMem, &v)) {
        total += v;
      }
    }
    for (const auto& c : caches_) total += c->GetUsage();
    return total;
  }
  Settings Describe() const override { return RocksSettings(lazy_); }
  Settings OpenShape() const override {
    static constexpr const char* kNames[kNumTables] = {"account", "storage"};
    return RocksLevelShape(db_.get(), tables_, kNames, kNumTables);
  }
  std::vector<std::string> DataFiles(Table table) const override {
    std::vector<rocksdb::LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    const std::string cf = TableName(table);
    std::vector<std::string> out;
    for (const auto& f : files) {
      if (f.column_family_name == cf) {
        out.push_back(f.directory + "/" + f.relative_filename);
      }
    }
    return out;
  }
  rocksdb::DB* db() const { return db_.get(); }
  rocksdb::ColumnFamilyHandle* family(Table table) const {
    return tables_[static_cast<int>(table)];
  }
  Result<ReadGeometry> Geometry(Table table) const override {
    return RocksGeometry(db_.get(), tables_[static_cast<int>(table)]);
  }
  Result<uint64_t> CountPairs(Table table) const override {
    // Exact from the table properties for a bulk load: its files sit in one
    // level, hold no deletions and never overlap. An aged store's may
    // (overwrites in several levels, tombstones): its live keys are counted
    // by a walk.
    auto* cf = tables_[static_cast<int>(table)];
    rocksdb::TablePropertiesCollection props;
    FLATBENCH_RETURN_IF_ERROR(FromRocks(
        db_->GetPropertiesOfAllTables(cf, &props), "rocksdb table properties"));
    rocksdb::ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(cf, &meta);
    int levels = 0;
    for (const auto& level : meta.levels) {
      if (level.files.empty()) continue;
      ++levels;
      if (level.level == 0 && level.files.size() > 1) ++levels;
    }
    uint64_t n = 0;
    bool disjoint = levels <= 1;
    for (const auto& [file, p] : props) {
      if (p->num_merge_operands != 0) {
        return Status::Corruption(file + ": holds merge operands");
      }
      if (p->num_deletions != 0) disjoint = false;
      n += p->num_entries;
    }
    if (disjoint) return n;
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf));
    n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    FLATBENCH_RETURN_IF_ERROR(FromRocks(it->status(), "rocksdb count"));
    return n;
  }

 private:
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::ColumnFamilyHandle* tables_[kNumTables];
  bool lazy_;
  std::vector<std::shared_ptr<rocksdb::Cache>> caches_;
  bool snapshot_;
};

std::shared_ptr<rocksdb::Cache> CacheOf(
    const rocksdb::ColumnFamilyOptions& cf) {
  auto* t = cf.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>();
  return t ? t->block_cache : nullptr;
}

class RocksLoader : public BulkLoader {
 public:
  RocksLoader(std::string dir, unsigned jobs)
      : dir_(std::move(dir)), files_(StagingDir(), jobs) {}
  ~RocksLoader() override {
    // An unfinished load leaves no CURRENT file, so nothing opens; the
    // dataset logic removes the whole folder before a retry.
    files_.Abort();  // No thread writes into the folder removed next.
    std::error_code ec;
    if (!finished_) std::filesystem::remove_all(StagingDir(), ec);
  }

  Status Add(Table table, std::string_view key,
             std::string_view value) override {
    return files_.Add(table, key, value);
  }

  Status Finish() override {
    FLATBENCH_RETURN_IF_ERROR(files_.Finish());
    rocksdb::DBOptions dbo = RocksDbOptions();
    dbo.create_if_missing = true;
    dbo.create_missing_column_families = true;
    auto families = RocksFamilies(/*lazy_metadata=*/false);
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    FLATBENCH_RETURN_IF_ERROR(FromRocks(
        rocksdb::DB::Open(dbo, dir_, families, &handles, &raw), dir_));
    std::unique_ptr<rocksdb::DB> db(raw);
    Status st;
    for (int t = 0; t < kNumTables && st.ok(); ++t) {
      const auto& files = files_.files(static_cast<Table>(t));
      if (files.empty()) continue;
      rocksdb::IngestExternalFileOptions ingest;
      ingest.move_files = true;
      st = FromRocks(db->IngestExternalFile(handles[t + 1], files, ingest),
                     dir_ + ": ingest " + TableName(static_cast<Table>(t)));
    }
    if (st.ok()) st = FromRocks(db->SyncWAL(), dir_ + ": sync");
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    if (st.ok()) st = FromRocks(db->Close(), dir_ + ": close");
    std::error_code ec;
    std::filesystem::remove_all(StagingDir(), ec);
    finished_ = st.ok();
    return st;
  }

 private:
  std::string StagingDir() const { return dir_ + "/ingest-staging"; }

  std::string dir_;
  SstFiles files_;  // After dir_: its staging folder is named from it.
  bool finished_ = false;
};

}  // namespace

Result<std::unique_ptr<Backend>> OpenRocksDb(const std::string& dir,
                                             const OpenOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(dir + "/CURRENT", ec)) {
    return Status::MissingInput(dir + ": no RocksDB database (no CURRENT)");
  }
  auto families = RocksFamilies(options.lazy_metadata);
  std::vector<std::shared_ptr<rocksdb::Cache>> caches = {
      CacheOf(families[1].options), CacheOf(families[2].options)};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  FLATBENCH_RETURN_IF_ERROR(
      FromRocks(rocksdb::DB::OpenForReadOnly(RocksDbOptions(), dir, families,
                                             &handles, &raw),
                dir));
  return std::unique_ptr<Backend>(
      new RocksBackend(std::unique_ptr<rocksdb::DB>(raw), std::move(handles),
                       options.lazy_metadata, std::move(caches)));
}

std::unique_ptr<Backend> RocksDbBackendOver(
    std::unique_ptr<rocksdb::DB> db,
    std::vector<rocksdb::ColumnFamilyHandle*> handles) {
  return std::unique_ptr<Backend>(
      new RocksBackend(std::move(db), std::move(handles), /*lazy=*/false, {},
                       /*snapshot=*/false));
}

Result<std::unique_ptr<BulkLoader>> NewRocksDbLoader(const std::string& dir,
                                                     unsigned jobs) {
  return std::unique_ptr<BulkLoader>(new RocksLoader(dir, jobs));
}

namespace {

class RocksScan : public TableScan {
 public:
  RocksScan(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* family) {
    rocksdb::ReadOptions read;
    read.verify_checksums = true;
    // A walk of every block would evict what the block cache holds.
    read.fill_cache = false;
    read.readahead_size = 2 << 20;
    iter_.reset(db->NewIterator(read, family));
  }
  Status Next(bool* valid, std::string_view* key,
              std::string_view* value) override {
    if (started_) {
      iter_->Next();
    } else {
      iter_->SeekToFirst();
      started_ = true;
    }
    *valid = iter_->Valid();
    if (!*valid) return FromRocks(iter_->status(), "rocksdb scan");
    *key = std::string_view(iter_->key().data(), iter_->key().size());
    *value = std::string_view(iter_->value().data(), iter_->value().size());
    return Status::Ok();
  }

 private:
  std::unique_ptr<rocksdb::Iterator> iter_;
  bool started_ = false;
};

}  // namespace

Result<std::unique_ptr<TableScan>> RocksBackend::OpenScan(Table table) {
  return std::unique_ptr<TableScan>(new RocksScan(db(), family(table)));
}

Result<std::string> RocksBackend::CheckIntegrity() {
  rocksdb::ReadOptions read;
  read.fill_cache = false;
  read.readahead_size = 2 << 20;
  FLATBENCH_RETURN_IF_ERROR(
      FromRocks(db()->VerifyChecksum(read), "rocksdb VerifyChecksum"));
  return std::string("VerifyChecksum ok");
}

std::string RocksDbVersion() {
  return std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) +
         "." + std::to_string(ROCKSDB_PATCH);
}

}  // namespace flatbench::baselines
