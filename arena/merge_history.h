#pragma once
// What both of the arena's writers (MergeWriter, LiveStore) do for each
// merge: the delta written beside the store and read back before the base
// is touched, the merge itself (MergeStore), and the record of the merges
// for the writer's upkeep figures.

#include <csignal>
#include <string>
#include <vector>

#include "arena/builder.h"
#include "arena/delta.h"
#include "arena/merge.h"
#include "common/backend.h"

namespace flatbench::arena {

// The delta file beside a store while it is merged: DIR.delta.
std::string DeltaPath(const std::string& dir);

// Writes `delta` to DIR.delta (so the merge can be told from its input,
// and a delta that does not decode is refused before the base is
// touched), merges what it reads back into the store (MergeStore) and
// removes the file. Errors: WriteDelta's, ReadDelta's, MergeStore's.
Result<MergeStats> MergeThroughDeltaFile(
    const std::string& dir, const Delta& delta, const BuilderOptions& options,
    unsigned jobs, const volatile std::sig_atomic_t* stop);

// Every merge's figures and jobs, in order. Not thread-safe.
class MergeHistory {
 public:
  explicit MergeHistory(unsigned jobs) : jobs_(jobs) {}

  // The jobs of the next merge: with more than one job, every second merge
  // runs at one, so one aging measures the merge at both (the files are
  // the same either way).
  unsigned NextJobs() const {
    return jobs_ > 1 && merges_.size() % 2 == 1 ? 1 : jobs_;
  }
  void Add(const MergeStats& stats, unsigned jobs) {
    merges_.push_back(stats);
    merge_jobs_.push_back(jobs);
  }
  // merges (all of them) and merge_jobs; merge_seconds, merge_pairs_per_s
  // and merge_mb_per_s (the new store's bytes over the merges' time) of the
  // merges at the writer's jobs; when those are more than one, the count
  // and figures of those at one job, prefixed "one_job_".
  void AddRates(Settings& s) const;
  // The pairs and file bytes after the last merge, if any.
  void AddLast(Settings& s) const;

  const std::vector<MergeStats>& merges() const { return merges_; }

 private:
  void AddRatesAt(unsigned jobs, const std::string& prefix, Settings& s) const;

  const unsigned jobs_;
  std::vector<MergeStats> merges_;
  std::vector<unsigned> merge_jobs_;
};

}  // namespace flatbench::arena
