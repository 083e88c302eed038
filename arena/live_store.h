#pragma once
// The arena as a live engine: one writer thread applies the stream's
// blocks while any number of reader threads read the same store, in one
// process, and merges run in the background.
//
// Reads. A reader's session pins an immutable version of the store: the
// base (the mmap read path, ArenaBackend) and at most two deltas
// (arena/live_delta.h): the active one, which the writer adds each block
// to, and the frozen one a running merge is folding into a new base. A Get
// looks in the active delta, then the frozen one, then the base. It sees
// every block whose ApplyBlock returned before the Get began (and may see
// one being applied). A session checks the store's version number (one
// atomic load) at each Get, and takes the new version, under a mutex, only
// when it changed: twice per merge.
//
// Writes. ApplyBlock appends the block to the log (DIR.log,
// arena/block_log.h) and adds it to the active delta. Every
// `merge_every` blocks the writer freezes: the log becomes DIR.log.frozen
// and a new DIR.log starts at the next block, the active delta becomes the
// frozen one and a fresh delta the active one (a new version), and a
// merge starts on a thread of its own. The merge writes the frozen delta
// beside the store (DIR.delta), builds the new base beside it (DIR.merge,
// MergeStore) and exchanges the two folders in one rename; then it opens
// the new base and publishes the version {new base, active delta}, and
// removes DIR.log.frozen. If the writer reaches the next merge point while
// a merge still runs, it waits for it: a stall, recorded in the merge's
// window.
//
// The old base's files are unlinked once the exchange is made, but a
// version still pinned keeps their mappings (and the mapping keeps the
// inode): readers of it never open a path again. Its memory is released
// when the last session that pinned it moves on or goes.
//
// A kill anywhere leaves a store that opens: DIR is the old base or the
// new one (one rename), and the logs hold every block the base may lack
// (BlockLog::Open joins a frozen segment back to the log).

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "arena/backend.h"
#include "arena/block_log.h"
#include "arena/builder.h"
#include "arena/live_delta.h"
#include "arena/merge_history.h"
#include "common/backend.h"

namespace flatbench::arena {

// What a reader reads: immutable once published.
struct LiveVersion {
  std::shared_ptr<ArenaBackend> base;
  std::shared_ptr<const LiveDelta> frozen;  // Null when no merge runs.
  std::shared_ptr<const LiveDelta> active;
};

// One merge, as it happened. Times are steady-clock seconds since Open.
struct MergeWindow {
  uint64_t first_block = 0;  // The first block it merged.
  uint64_t end_block = 0;    // One past the last.
  double start_seconds = 0;  // The freeze.
  double end_seconds = 0;    // The new base published; 0 while it runs.
  // How long the writer waited for it at the next merge point or Finish.
  double stall_seconds = 0;
  bool ok = false;  // Ended and published.
};

// The steps of a merge, for tests that stop the process at one.
enum class LivePoint {
  kFrozen,            // Log and delta frozen; the merge not started.
  kBaseExchanged,     // The new base in DIR, durable; readers on the old.
  kVersionPublished,  // Readers on the new base; the frozen log still on disk.
  kFrozenDropped,     // The merge's last step done.
};

class LiveStore final : public Backend, public StoreWriter {
 public:
  // Recovers the logs beside `dir` as MergeWriter::Open does (BlockLog),
  // keeping writer.from_block's rule, into the active delta, then opens the
  // base (ArenaBackend::Open, mmap, with `open`). `build`: the options the
  // store was built with, which merges build with. Errors: BlockLog::Open's
  // and ArenaBackend::Open's.
  static Result<std::unique_ptr<LiveStore>> Open(const std::string& dir,
                                                 const OpenOptions& open,
                                                 const BuilderOptions& build,
                                                 const WriterOptions& writer);
  // Waits for a running merge.
  ~LiveStore() override;

  // ---- Reads: thread-safe.
  std::string Name() const override { return "arena+live"; }
  // A session pins a version until its next Get, Scan or MultiGet that
  // finds the store changed, or its end. A value it returns stays valid
  // until its next call or its end. Get allocates only when it moves to a
  // new base (a new base session).
  Result<std::unique_ptr<ReadSession>> NewSession() override;
  // The base's index and filter, and the deltas' keys and values.
  uint64_t ResidentMetadataBytes() const override;
  Settings Describe() const override;
  // Of the current version; a snapshot of its deltas, O(delta).
  Result<uint64_t> CountPairs(Table table) const override;
  Result<ReadGeometry> Geometry(Table table) const override;
  // Over the version current at the call, which the scan pins.
  Result<std::unique_ptr<TableScan>> OpenScan(Table table) override;
  // The base's files in DIR, checked while no merge writes them.
  Result<std::string> CheckIntegrity() override;
  std::vector<std::string> DataFiles(Table table) const override;

  // The version readers start on now, and its number.
  std::shared_ptr<const LiveVersion> Current(uint64_t* generation) const;
  // The version's number: changes at each freeze and each publish.
  uint64_t generation() const {
    return generation_.load(std::memory_order_acquire);
  }

  // ---- Writes: one thread.
  StoreWriter& writer() { return *this; }
  // Appends the block to the log and makes it visible to readers; at a
  // merge point, waits for a running merge, then freezes and starts the
  // next. Errors: the log's, or a failed merge's (every later call returns
  // it); kUsage after Finish.
  Status ApplyBlock(std::span<const KeyChange> changes) override;
  // Syncs the log: every block applied is durable. Returns the blocks this
  // writer applied, or a failed merge's error.
  Result<uint64_t> Checkpoint() override;
  // As MergeWriter::Finish: waits for a running merge, merges the blocks
  // left (on this thread) and removes the log, leaving the tail as the
  // log. Reads go on after it; writes may not.
  Status Finish() override;
  // MergeWriter's figures, and the live store's: blocks_applied, stalls
  // and stall_seconds.
  Settings Upkeep() const override;

  // ---- Figures: thread-safe.
  std::vector<MergeWindow> MergeWindows() const;
  std::vector<MergeStats> merges() const;
  uint64_t blocks_applied() const {
    return applied_.load(std::memory_order_relaxed);
  }
  // Merges ended and published.
  uint64_t merges_done() const;
  // Blocks read back from the logs at Open.
  uint64_t recovered_blocks() const { return recovered_; }

  // Called at each step of every merge, on the thread that runs it (the
  // writer's for kFrozen and for Finish's merge). Set before the first
  // ApplyBlock.
  void SetPointHookForTesting(std::function<void(LivePoint)> hook) {
    hook_ = std::move(hook);
  }

 private:
  LiveStore(std::string dir, const OpenOptions& open,
            const BuilderOptions& build, const WriterOptions& writer);

  Status StartMerge(bool inline_merge);
  Status WaitForMerge();
  void RunMerge(std::shared_ptr<const LiveDelta> frozen, size_t window,
                unsigned jobs);
  Status MergeFrozen(const LiveDelta& frozen, unsigned jobs, MergeStats* stats);
  void Publish(std::shared_ptr<const LiveVersion> version);
  void Point(LivePoint p) const {
    if (hook_) hook_(p);
  }
  double Seconds() const;

  const std::string dir_;
  const OpenOptions open_;
  const BuilderOptions build_;
  const WriterOptions writer_;
  const std::chrono::steady_clock::time_point start_;
  std::function<void(LivePoint)> hook_;

  // The version and its number, swapped under version_mu_.
  mutable std::mutex version_mu_;
  std::shared_ptr<const LiveVersion> version_;
  std::atomic<uint64_t> generation_{0};

  // Held while a merge writes DIR's files (CheckIntegrity waits for it).
  mutable std::mutex files_mu_;

  // The writer's own state.
  BlockLog log_;
  std::shared_ptr<LiveDelta> active_;
  uint64_t pending_blocks_ = 0;
  uint64_t recovered_ = 0;
  uint64_t stalls_ = 0;
  double stall_seconds_ = 0;
  bool finished_ = false;
  std::thread merge_thread_;
  std::atomic<bool> merge_running_{false};
  std::atomic<uint64_t> applied_{0};

  // What the merges left, under state_mu_.
  mutable std::mutex state_mu_;
  std::vector<MergeWindow> windows_;
  MergeHistory history_;
  Status merge_status_;
};

}  // namespace flatbench::arena
