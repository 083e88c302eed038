#include "baselines/rocksdb_writer.h"

#include <rocksdb/statistics.h>
#include <rocksdb/write_batch.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "baselines/rocksdb_options.h"

namespace flatbench::baselines {
namespace {

class RocksWriter final : public StoreWriter {
 public:
  // A writer dropped without Finish (an error, a signal) still closes: what
  // was written is in the WAL.
  ~RocksWriter() override { static_cast<void>(Close()); }

  Status Open(const std::string& dir) {
    dir_ = dir;
    std::error_code ec;
    if (!std::filesystem::exists(dir + "/CURRENT", ec)) {
      return Status::MissingInput(dir + ": no RocksDB database (no CURRENT)");
    }
    rocksdb::DBOptions dbo = RocksDbOptions();
    dbo.statistics = rocksdb::CreateDBStatistics();
    stats_ = dbo.statistics;
    auto families = RocksFamilies(/*lazy_metadata=*/false);
    rocksdb::DB* raw = nullptr;
    FLATBENCH_RETURN_IF_ERROR(
        FromRocks(rocksdb::DB::Open(dbo, dir, families, &handles_, &raw), dir));
    db_.reset(raw);
    return Status::Ok();
  }

  Status ApplyBlock(std::span<const KeyChange> changes) override {
    rocksdb::WriteBatch batch;
    for (const KeyChange& c : changes) {
      auto* cf = handles_[static_cast<int>(c.table) + 1];
      rocksdb::Status s = c.erase
                              ? batch.Delete(cf, ToSlice(c.key))
                              : batch.Put(cf, ToSlice(c.key), ToSlice(c.value));
      FLATBENCH_RETURN_IF_ERROR(FromRocks(s, dir_ + ": batch"));
    }
    FLATBENCH_RETURN_IF_ERROR(
        FromRocks(db_->Write(rocksdb::WriteOptions(), &batch), dir_));
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
    std::vector<rocksdb::ColumnFamilyHandle*> families(handles_.begin() + 1,
                                                       handles_.end());
    FLATBENCH_RETURN_IF_ERROR(
        FromRocks(db_->Flush(fo, families), dir_ + ": flush"));
    FLATBENCH_RETURN_IF_ERROR(WaitForCompactions());
    FLATBENCH_RETURN_IF_ERROR(FromRocks(db_->SyncWAL(), dir_ + ": sync"));
    upkeep_ = Shape();
    return Close();
  }

  Settings Upkeep() const override { return upkeep_; }

 private:
  static rocksdb::Slice ToSlice(std::string_view v) {
    return {v.data(), v.size()};
  }

  // The shape is the one a node has once its background work is done:
  // RocksDB 7.8 has no call to wait for it, so its own counters are read
  // until nothing runs or is pending. A background error (a full disk)
  // stops RocksDB's work for good: it is returned, not waited on.
  Status WaitForCompactions() {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::hours(1);
    for (;;) {
      uint64_t errors = 0;
      db_->GetIntProperty(rocksdb::DB::Properties::kBackgroundErrors, &errors);
      if (errors > 0) {
        return Status::IOError(
            dir_ + ": RocksDB stopped its background work after " +
            std::to_string(errors) + " error(s); is the disk full?");
      }
      if (std::chrono::steady_clock::now() > deadline) {
        return Status::IOError(dir_ +
                               ": compactions still running after an hour");
      }
      uint64_t running = 0, pending = 0, flushes = 0;
      db_->GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions,
                          &running);
      db_->GetIntProperty(rocksdb::DB::Properties::kNumRunningFlushes,
                          &flushes);
      for (size_t i = 1; i < handles_.size(); ++i) {
        uint64_t p = 0;
        db_->GetIntProperty(handles_[i],
                            rocksdb::DB::Properties::kCompactionPending, &p);
        pending += p;
      }
      if (running == 0 && pending == 0 && flushes == 0) return Status::Ok();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  Settings Shape() const {
    Settings s;
    static constexpr const char* kNames[kNumTables] = {"account", "storage"};
    for (int t = 0; t < kNumTables; ++t) {
      rocksdb::ColumnFamilyMetaData meta;
      db_->GetColumnFamilyMetaData(handles_[t + 1], &meta);
      std::string levels;
      for (const auto& level : meta.levels) {
        if (level.files.empty()) continue;
        if (!levels.empty()) levels += " ";
        levels += "L" + std::to_string(level.level) + ":" +
                  std::to_string(level.files.size()) + "/" +
                  std::to_string(level.size);
      }
      const std::string p = std::string(kNames[t]) + ".";
      s.emplace_back(p + "levels", levels);  // "Ln:files/bytes" per level.
      s.emplace_back(
          p + "l0_files",
          std::to_string(meta.levels.empty() ? 0
                                             : meta.levels[0].files.size()));
      s.emplace_back(p + "sst_bytes", std::to_string(meta.size));
    }
    auto ticker = [&](const char* name, rocksdb::Tickers t) {
      s.emplace_back(name, std::to_string(stats_->getTickerCount(t)));
    };
    ticker("user_bytes_written", rocksdb::BYTES_WRITTEN);
    ticker("wal_bytes", rocksdb::WAL_FILE_BYTES);
    ticker("flush_bytes", rocksdb::FLUSH_WRITE_BYTES);
    ticker("compaction_bytes_written", rocksdb::COMPACT_WRITE_BYTES);
    ticker("compaction_bytes_read", rocksdb::COMPACT_READ_BYTES);
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
  Settings upkeep_;
};

}  // namespace

Result<std::unique_ptr<StoreWriter>> NewRocksDbWriter(const std::string& dir) {
  auto w = std::make_unique<RocksWriter>();
  FLATBENCH_RETURN_IF_ERROR(w->Open(dir));
  return std::unique_ptr<StoreWriter>(std::move(w));
}

}  // namespace flatbench::baselines
