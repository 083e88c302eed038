#pragma once
// Bulk-loads a dataset into DIR/account.arena and DIR/storage.arena.

#include <memory>
#include <string>
#include <string_view>

#include "arena/builder.h"
#include "common/backend.h"
#include "common/status.h"

namespace flatbench::arena {

class ArenaLoader final : public BulkLoader {
 public:
  // Prepares to build the two files of `dir` (which must exist).
  // options.key_width is ignored: each table uses KeySize(table).
  // Errors: as Builder::Create for the account file. `jobs`: threads
  // building each file's shards (Builder::Create).
  static Result<std::unique_ptr<ArenaLoader>> Create(
      const std::string& dir, const BuilderOptions& options = {},
      unsigned jobs = 1);

  // REQUIRES (checked; violations return kUsage or kCorruption and are
  // kept): every account key before the first storage key, keys of a table
  // strictly ascending. The account file is finished and durable before
  // the storage file is started.
  Status Add(Table table, std::string_view key,
             std::string_view value) override;
  // Whole shards: Prepare builds the shard of a run on the caller's
  // thread (BuildShard, the table's key width) into a part of this
  // loader's own type (ShardPart); Commit appends it to its table's file,
  // under the same order rules as Add (the account file is finished before
  // the first storage shard is placed), and refuses a part another loader
  // prepared (kUsage).
  bool TakesBuckets() const override { return true; }
  Result<std::unique_ptr<LoadPart>> Prepare(Table table,
                                            const PairRun& run) override;
  Status Commit(std::unique_ptr<LoadPart> part) override;
  // Finishes whichever files are not yet finished (an empty table makes an
  // empty, valid file). Only after it returns ok do both files exist.
  Status Finish() override;

  // Build statistics per table, valid after Finish.
  const BuildStats& stats(Table table) const {
    return stats_[static_cast<int>(table)];
  }

 private:
  // A built shard waiting for Commit, and its table (loader.cc).
  class ShardPart;

  ArenaLoader(std::string dir, const BuilderOptions& options, unsigned jobs)
      : dir_(std::move(dir)), options_(options), jobs_(jobs) {}
  // Appends a prepared shard of `table` (Commit's work, ShardPart's call).
  Status AddShard(Table table, BuiltShard* shard);
  Status Start(Table table);
  // Finishes earlier tables' files and starts `table`'s, as needed before
  // its first pair; kUsage for a table before the current one.
  Status Reach(Table table);
  Status FinishCurrent();

  std::string dir_;
  BuilderOptions options_;
  unsigned jobs_;
  int table_ = -1;  // table being built
  std::unique_ptr<Builder> builder_;
  Status status_;
  BuildStats stats_[kNumTables];
};

}  // namespace flatbench::arena
