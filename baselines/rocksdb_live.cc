#include "baselines/rocksdb_live.h"

#include <rocksdb/statistics.h>
#include <rocksdb/write_batch.h>

#include <filesystem>

#include "baselines/rocksdb_backend.h"
#include "baselines/rocksdb_options.h"
#include "baselines/rocksdb_write_path.h"

namespace flatbench::baselines {
namespace {

// The writer half: borrows the DB and its families from the backend, which
// owns them and outlives it (LiveRocks destroys the writer first).
class LiveRocksWriter final : public StoreWriter {
 public:
  LiveRocksWriter(std::string dir, rocksdb::DB* db,
                  std::vector<rocksdb::ColumnFamilyHandle*> families)
      : dir_(std::move(dir)), db_(db), families_(std::move(families)) {}

  Status ApplyBlock(std::span<const KeyChange> changes) override {
    FLATBENCH_RETURN_IF_ERROR(WriteBlock(db_, families_, changes, dir_));
    ++applied_;
    return Status::Ok();
  }

  Result<uint64_t> Checkpoint() override {
    FLATBENCH_RETURN_IF_ERROR(FromRocks(db_->FlushWAL(true), dir_ + ": sync"));
    return applied_;
  }

  Status Finish() override {
    rocksdb::FlushOptions fo;
    fo.wait = true;
    FLATBENCH_RETURN_IF_ERROR(
        FromRocks(db_->Flush(fo, families_), dir_ + ": flush"));
    return WaitForBackgroundWork(db_, families_, dir_);
  }

  Settings Upkeep() const override {
    return {{"blocks_applied", std::to_string(applied_)}};
  }

 private:
  std::string dir_;
  rocksdb::DB* db_;
  std::vector<rocksdb::ColumnFamilyHandle*> families_;
  uint64_t applied_ = 0;
};

class LiveRocks final : public LiveStore {
 public:
  LiveRocks(std::unique_ptr<Backend> backend,
            std::unique_ptr<StoreWriter> writer,
            std::shared_ptr<rocksdb::Statistics> stats)
      : backend_(std::move(backend)),
        writer_(std::move(writer)),
        stats_(std::move(stats)) {}
  ~LiveRocks() override { writer_.reset(); }

  Backend& backend() override { return *backend_; }
  StoreWriter& writer() override { return *writer_; }
  BackgroundWork Background() const override {
    rocksdb::HistogramData compactions;
    stats_->histogramData(rocksdb::COMPACTION_TIME, &compactions);
    BackgroundWork w;
    w.known = true;
    w.compactions = compactions.count;
    w.compaction_bytes_written =
        stats_->getTickerCount(rocksdb::COMPACT_WRITE_BYTES);
    return w;
  }

 private:
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<StoreWriter> writer_;
  std::shared_ptr<rocksdb::Statistics> stats_;
};

}  // namespace

Result<std::unique_ptr<LiveStore>> OpenRocksDbLive(const std::string& dir,
                                                   const OpenOptions& options,
                                                   const WriterOptions&) {
  std::error_code ec;
  if (!std::filesystem::exists(dir + "/CURRENT", ec)) {
    return Status::MissingInput(dir + ": no RocksDB database (no CURRENT)");
  }
  rocksdb::DBOptions dbo = RocksDbOptions();
  dbo.statistics = rocksdb::CreateDBStatistics();
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  FLATBENCH_RETURN_IF_ERROR(FromRocks(
      rocksdb::DB::Open(dbo, dir, RocksFamilies(options.lazy_metadata),
                        &handles, &raw),
      dir));
  std::unique_ptr<rocksdb::DB> db(raw);
  auto writer = std::make_unique<LiveRocksWriter>(
      dir, raw,
      std::vector<rocksdb::ColumnFamilyHandle*>(handles.begin() + 1,
                                                handles.end()));
  auto backend = RocksDbBackendOver(std::move(db), std::move(handles));
  return std::unique_ptr<LiveStore>(std::make_unique<LiveRocks>(
      std::move(backend), std::move(writer), dbo.statistics));
}

}  // namespace flatbench::baselines
