#include "baselines/rocksdb_writer.h"

#include <rocksdb/statistics.h>
#include <rocksdb/write_batch.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "baselines/rocksdb_options.h"
#include "baselines/rocksdb_read_cost.h"
#include "baselines/rocksdb_write_path.h"

namespace flatbench::baselines {
namespace {

class RocksWriter final : public StoreWriter {
 public:
  // A writer dropped without Finish (an error, a signal) still closes: what
  // the last Checkpoint counted is in the WAL, and age applies the blocks
  // after it again.
  ~RocksWriter() override { static_cast<void>(Close()); }

  // Opens the store; a bulk-loaded one is relevelled first
  // (rocksdb_write_path.h), so the stream ages a node's shape.
  Status Open(const std::string& dir, bool quiet,
              const volatile std::sig_atomic_t* stop) {
    dir_ = dir;
    std::error_code ec;
    if (!std::filesystem::exists(dir + "/CURRENT", ec)) {
      return Status::MissingInput(dir + ": no RocksDB database (no CURRENT)");
    }
    std::filesystem::remove_all(RelevelPath(dir), ec);
    if (ec) return Status::IOError(RelevelPath(dir) + ": " + ec.message());
    FLATBENCH_RETURN_IF_ERROR(OpenDb());
    if (OnlyInLastLevel(db_.get(), Families())) {
      FLATBENCH_RETURN_IF_ERROR(Close());
      FLATBENCH_RETURN_IF_ERROR(Relevel(dir, quiet, stop));
      relevelled_ = true;
      FLATBENCH_RETURN_IF_ERROR(OpenDb());
    }
    start_sst_bytes_ = SstBytes(db_.get(), Families());
    return Status::Ok();
  }

  // RocksDB's compactions have written at least the store's size as this
  // writer opened it.
  Steadiness Steady() override {
    const uint64_t written =
        stats_->getTickerCount(rocksdb::COMPACT_WRITE_BYTES);
    Steadiness s;
    s.applies = true;
    s.met = written >= start_sst_bytes_;
    s.what = "compactions wrote " + std::to_string(written) + " of the " +
             std::to_string(start_sst_bytes_) + " bytes the store held";
    return s;
  }

  Status ApplyBlock(std::span<const KeyChange> changes) override {
    FLATBENCH_RETURN_IF_ERROR(WriteBlock(db_.get(), Families(), changes, dir_));
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
        FromRocks(db_->Flush(fo, Families()), dir_ + ": flush"));
    FLATBENCH_RETURN_IF_ERROR(
        WaitForBackgroundWork(db_.get(), Families(), dir_));
    FLATBENCH_RETURN_IF_ERROR(FromRocks(db_->SyncWAL(), dir_ + ": sync"));
    upkeep_ = Shape();
    return Close();
  }

  Settings Upkeep() const override { return upkeep_; }

 private:
  Status OpenDb() {
    rocksdb::DBOptions dbo = RocksDbOptions();
    dbo.statistics = rocksdb::CreateDBStatistics();
    stats_ = dbo.statistics;
    auto families = RocksFamilies(/*lazy_metadata=*/false);
    rocksdb::DB* raw = nullptr;
    FLATBENCH_RETURN_IF_ERROR(FromRocks(
        rocksdb::DB::Open(dbo, dir_, families, &handles_, &raw), dir_));
    db_.reset(raw);
    return Status::Ok();
  }

  std::vector<rocksdb::ColumnFamilyHandle*> Families() const {
    return {handles_.begin() + 1, handles_.end()};
  }

  Settings Shape() const {
    static constexpr const char* kNames[kNumTables] = {"account", "storage"};
    Settings s =
        RocksLevelShape(db_.get(), handles_.data() + 1, kNames, kNumTables);
    auto ticker = [&](const char* name, rocksdb::Tickers t) {
      s.emplace_back(name, std::to_string(stats_->getTickerCount(t)));
    };
    ticker("user_bytes_written", rocksdb::BYTES_WRITTEN);
    ticker("wal_bytes", rocksdb::WAL_FILE_BYTES);
    ticker("flush_bytes", rocksdb::FLUSH_WRITE_BYTES);
    ticker("compaction_bytes_written", rocksdb::COMPACT_WRITE_BYTES);
    ticker("compaction_bytes_read", rocksdb::COMPACT_READ_BYTES);
    s.emplace_back("start_sst_bytes", std::to_string(start_sst_bytes_));
    s.emplace_back("relevelled", relevelled_ ? "true" : "false");
    return s;
  }

  Status Close() {
    if (!db_) return Status::Ok();
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h);
    handles_.clear();
    Status st = FromRocks(db_->Close(), dir_ + ": close");
    db_.reset();
    return st;
  }

  std::string dir_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  std::shared_ptr<rocksdb::Statistics> stats_;
  uint64_t applied_ = 0;
  uint64_t start_sst_bytes_ = 0;
  bool relevelled_ = false;
  Settings upkeep_;
};

}  // namespace

Result<std::unique_ptr<StoreWriter>> NewRocksDbWriter(
    const std::string& dir, const WriterOptions& options) {
  auto w = std::make_unique<RocksWriter>();
  FLATBENCH_RETURN_IF_ERROR(w->Open(dir, !options.progress, options.stop));
  return std::unique_ptr<StoreWriter>(std::move(w));
}

}  // namespace flatbench::baselines
