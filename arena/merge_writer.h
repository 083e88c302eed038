#pragma once
// The arena aged as the design keeps it: each block's changes appended to
// the store's log (DIR.log, arena/delta_log.h) and gathered in memory into
// a delta, and every `merge_every` blocks the delta written beside the
// store (DIR.delta, so a merge can be repeated from it) and merged into a
// new base (MergeStore), after which the log starts again. Checkpoint syncs
// the log, so every block applied is durable. After a kill, the writer
// reads the blocks the log holds back into its delta. Between merges a
// node answers from the gathered delta first (the `arena+delta` read path).

#include <csignal>
#include <memory>
#include <string>
#include <unordered_map>

#include "arena/builder.h"
#include "arena/delta_log.h"
#include "arena/merge.h"
#include "common/backend.h"

namespace flatbench::arena {

class MergeWriter final : public StoreWriter {
 public:
  // `dir` holds a complete arena store built with `options`.
  MergeWriter(std::string dir, const BuilderOptions& options,
              const WriterOptions& writer);

  // Recovers the log's blocks before options.from_block into the delta (a
  // log torn by a kill loses its last record only; blocks at or after
  // from_block are cut, to be applied again), or starts a log. kCorruption
  // naming the log when it is damaged, or holds fewer blocks than
  // from_block says are durable.
  Status Open();

  Status ApplyBlock(std::span<const KeyChange> changes) override;
  Result<uint64_t> Checkpoint() override;
  Status Finish() override;
  // merges (all of them) and merge_jobs; merge_seconds, merge_pairs_per_s
  // and merge_mb_per_s (the new store's bytes over the merges' time) of the
  // merges at merge_jobs; when merge_jobs > 1 (every second merge runs at
  // one job), the count and figures of those at one job, prefixed
  // "one_job_"; the pairs and file bytes after the last merge; log_bytes
  // (appended by this writer) and recovered_blocks.
  Settings Upkeep() const override;

  // Every merge's figures, in order.
  const std::vector<MergeStats>& merges() const { return merges_; }
  // Blocks read back from the log at Open.
  uint64_t recovered_blocks() const { return recovered_; }
  // The tail's file while it is written.
  static std::string TailPath(const std::string& dir) {
    return LogPath(dir) + ".tail";
  }

 private:
  Status Merge();
  void Gather(std::span<const KeyChange> changes);
  Status OpenTail();

  // The log's tail (WriterOptions::log_tail): the stream's last blocks,
  // appended to DIR.log.tail from tail_from_ on, which Finish leaves as
  // the store's log once everything is merged.
  uint64_t tail_from_ = 0;
  bool tail_on_ = false;
  LogWriter tail_;

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
  uint64_t next_block_ = 0;  // The stream's number of the next block.
  uint64_t applied_ = 0;     // By this writer.
  uint64_t recovered_ = 0;
  uint64_t log_bytes_ = 0;  // Appended by this writer, headers included.
  LogWriter log_;
  std::vector<MergeStats> merges_;
  std::vector<unsigned> merge_jobs_;  // Each merge's jobs.
};

// The delta file beside a store while it is merged: DIR.delta.
std::string DeltaPath(const std::string& dir);

}  // namespace flatbench::arena
