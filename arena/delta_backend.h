#pragma once
// The arena as a live node reads it between merges (the `arena+delta` read
// path): the store's logs of unmerged blocks (DIR.log, and the frozen
// segment a merge in progress keeps, arena/block_log.h)
// read at open into a delta held in memory, sorted per table, which every
// read consults first; the base (the mmap read path) answers the rest. A
// store with no log reads as its base, each read still paying the delta's
// lookup.

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "arena/backend.h"
#include "arena/delta.h"
#include "common/backend.h"

namespace flatbench::arena {

class DeltaBackend final : public Backend {
 public:
  // Opens the base in `dir` (ArenaBackend::Open, mmap) and reads its log,
  // replaying every whole record (a torn last one is left out, as the
  // writer's recovery leaves it); a damaged log is kCorruption naming it.
  static Result<std::unique_ptr<DeltaBackend>> Open(const std::string& dir,
                                                    const OpenOptions& options);

  std::string Name() const override { return "arena+delta"; }
  // Sessions answer from the delta first (a hash probe of its keys, no
  // allocation), then from the base. Values from the delta stay
  // valid while this backend lives.
  Result<std::unique_ptr<ReadSession>> NewSession() override;
  // The base's index and filter, and the delta's keys and values.
  uint64_t ResidentMetadataBytes() const override;
  // The base's settings, and the delta's blocks, keys and bytes.
  Settings Describe() const override;
  // The base's count, with the delta's new keys added and its erased keys
  // taken away (each looked up in the base).
  Result<uint64_t> CountPairs(Table table) const override;
  Result<ReadGeometry> Geometry(Table table) const override {
    return base_->Geometry(table);
  }
  // The base's scan merged with the delta: its puts in place, its erases
  // left out.
  Result<std::unique_ptr<TableScan>> OpenScan(Table table) override;
  Result<std::string> CheckIntegrity() override {
    return base_->CheckIntegrity();
  }
  std::vector<std::string> DataFiles(Table table) const override {
    return base_->DataFiles(table);
  }

  const Delta& delta() const { return delta_; }
  uint64_t blocks() const { return blocks_; }

 private:
  DeltaBackend() = default;
  std::unique_ptr<ArenaBackend> base_;
  std::string log_;
  Delta delta_;  // Per table strictly ascending (CheckDelta holds).
  // Per table, each op's key (viewing delta_, which never changes after
  // Open) to its index: a Get's lookup in one hash probe, where a binary
  // search over millions of keys misses the cache at every step.
  std::unordered_map<std::string_view, uint32_t> index_[kNumTables];
  uint64_t blocks_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace flatbench::arena
