#pragma once
// The arena aged as the design keeps it: each block's changes appended to
// the store's log (DIR.log, arena/block_log.h) and gathered in memory into
// a delta, and every `merge_every` blocks the log frozen, the delta
// written beside the store (DIR.delta, so a merge can be repeated from it)
// and merged into a new base (MergeStore), after which the frozen log
// goes. Checkpoint syncs the log, so every block applied is durable. After
// a kill, the writer reads the blocks the logs hold back into its delta.
// Between merges a node answers from the gathered delta first (the
// `arena+delta` read path); arena/live_store.h serves reads while it
// writes, its merges in the background.

#include <memory>
#include <string>
#include <unordered_map>

#include "arena/block_log.h"
#include "arena/builder.h"
#include "arena/merge.h"
#include "arena/merge_history.h"
#include "common/backend.h"

namespace flatbench::arena {

class MergeWriter final : public StoreWriter {
 public:
  // `dir` holds a complete arena store built with `options`.
  MergeWriter(std::string dir, const BuilderOptions& options,
              const WriterOptions& writer);

  // Recovers the logs' blocks before options.from_block into the delta
  // (BlockLog::Open), or starts a log. kCorruption naming the log when it
  // is damaged, or holds fewer blocks than from_block says are durable.
  Status Open();

  Status ApplyBlock(std::span<const KeyChange> changes) override;
  Result<uint64_t> Checkpoint() override;
  Status Finish() override;
  // The merges' figures (MergeHistory::AddRates); the pairs and file bytes
  // after the last merge; log_bytes (appended by this writer) and
  // recovered_blocks.
  Settings Upkeep() const override;

  // Every merge's figures, in order.
  const std::vector<MergeStats>& merges() const { return history_.merges(); }
  // Blocks read back from the log at Open.
  uint64_t recovered_blocks() const { return log_.recovered(); }
  // The tail's file while it is written.
  static std::string TailPath(const std::string& dir) {
    return LogPath(dir) + ".tail";
  }

 private:
  Status Merge();
  void Gather(std::span<const KeyChange> changes);

  const std::string dir_;
  const BuilderOptions options_;
  const WriterOptions writer_;
  // The gathered changes per table: key -> (erase, value).
  // Hashed, not ordered: a block's 2,000 inserts into an ordered map of a
  // whole interval's keys cost more than the rest of the block; the merge
  // sorts them once.
  std::unordered_map<std::string, std::pair<bool, std::string>>
      pending_[kNumTables];
  uint64_t pending_blocks_ = 0;
  uint64_t applied_ = 0;  // By this writer.
  BlockLog log_;
  MergeHistory history_;
};

}  // namespace flatbench::arena
