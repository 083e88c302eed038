#pragma once
// The arena aged as the design keeps it: the blocks' changes gathered in
// memory into a delta, and every `merge_every` blocks the delta written
// beside the store (DIR.delta, so a merge can be repeated from it) and
// merged into a new base (MergeStore). Between merges a node would answer
// from the gathered delta first; the bench reads the merged base
// (RESEARCH.md, "The live node").

#include <csignal>
#include <map>
#include <memory>
#include <string>

#include "arena/builder.h"
#include "arena/merge.h"
#include "common/backend.h"

namespace flatbench::arena {

class MergeWriter final : public StoreWriter {
 public:
  // `dir` holds a complete arena store built with `options`.
  MergeWriter(std::string dir, const BuilderOptions& options, unsigned jobs,
              uint64_t merge_every, const volatile std::sig_atomic_t* stop);

  Status ApplyBlock(std::span<const KeyChange> changes) override;
  Result<uint64_t> Checkpoint() override { return merged_blocks_; }
  Status Finish() override;
  // merges (all of them) and merge_jobs; merge_seconds, merge_pairs_per_s
  // and merge_mb_per_s (the new store's bytes over the merges' time) of the
  // merges at merge_jobs; when merge_jobs > 1 (every second merge runs at
  // one job), the count and figures of those at one job, prefixed
  // "one_job_"; the pairs and file bytes after the last merge.
  Settings Upkeep() const override;

  // Every merge's figures, in order.
  const std::vector<MergeStats>& merges() const { return merges_; }

 private:
  Status Merge();

  const std::string dir_;
  const BuilderOptions options_;
  const unsigned jobs_;
  const uint64_t merge_every_;
  const volatile std::sig_atomic_t* stop_;
  // The gathered changes per table: key -> (erase, value).
  std::map<std::string, std::pair<bool, std::string>> pending_[kNumTables];
  uint64_t pending_blocks_ = 0;
  uint64_t merged_blocks_ = 0;
  std::vector<MergeStats> merges_;
  std::vector<unsigned> merge_jobs_;  // Each merge's jobs.
};

// The delta file beside a store while it is merged: DIR.delta.
std::string DeltaPath(const std::string& dir);

}  // namespace flatbench::arena
