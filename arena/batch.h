#pragma once
// Per-session state of Reader::MultiGet: the batch's plan (each key's
// block, the groups of keys that share one), the reads of its blocks and the
// buffers they land in, and the values it copies out. Reused from batch to
// batch, so a batch allocates nothing once these have grown to its size.
// Belongs to one thread at a time, like a ReadBuffer.
//
// The Reader plans and answers a batch through the methods below, in the
// order they are listed; each group's block source (block_source.h) places
// the group's block through its BatchSlot.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arena/batch_io.h"
#include "arena/block_cache.h"
#include "arena/block_source.h"
#include "arena/page_cache_probe.h"
#include "arena/read_buffer.h"
#include "common/backend.h"
#include "common/status.h"

namespace flatbench::arena {

// One distinct block of a batch and where its bytes are.
struct BatchGroup {
  uint32_t block = 0;  // its number in its shard (at.id: in the file)
  uint16_t shard = 0;
  BlockAddress at;
  BatchSlot slot;      // its source's placement (wired by the scratch)
  bool read = false;   // its bytes come with its read (NextRead)
  uint32_t first = 0;  // its keys: KeysOf (set by SealGroups)
  uint32_t end = 0;
  Status status;
};

// One key of the batch that needs a data block, and its block's group.
struct PlannedKey {
  uint32_t group;
  uint32_t key;
};

class BatchScratch {
 public:
  // `use_uring`: submit the batch's reads with io_uring where built in
  // (BatchIo); false, a pread loop.
  explicit BatchScratch(bool use_uring) : io_(use_uring) {}
  BatchScratch(const BatchScratch&) = delete;
  BatchScratch& operator=(const BatchScratch&) = delete;

  BatchIo& io() { return io_; }
  const BatchIo& io() const { return io_; }

  // The last batch's values may point into frames of the Reader's block
  // cache (cache read path), which stay pinned until the next batch, this
  // call or the scratch's destruction: as with a ReadBuffer, let them go
  // before the Reader is destroyed. The values are invalid after.
  void Release();

  // Starts a batch of `keys` keys: lets go of the last batch's values,
  // empties its plan, and sizes what follows for `keys` keys.
  void Begin(size_t keys);
  // Per key: its filter hash, and its block in its shard (kNoBlock when it
  // needs none, or Get answers it).
  uint64_t& hash(size_t key) { return hashes_[key]; }
  uint32_t& block(size_t key) { return blocks_[key]; }

  // The group of block `id` (the block's number in the file), with key
  // `key` added to it. A block the batch has not met gets a new group,
  // numbered in the order met, whose slot is wired to the batch's buffer,
  // read, pin and load for it; *made says so.
  size_t AddToGroup(uint32_t id, uint32_t key, bool* made);
  size_t group_count() const { return groups_.size(); }
  BatchGroup& group(size_t gi) { return groups_[gi]; }
  // Submits group gi's read (its slot's): in flight at return with
  // io_uring, done without.
  void Submit(size_t gi) { io_.Submit(gi); }
  // Puts each group's keys together, in batch order, once every key is
  // added; ends the batch's page cache questions.
  void SealGroups();
  // Group gi's keys (REQUIRES: SealGroups).
  std::span<const PlannedKey> KeysOf(size_t gi) const {
    const BatchGroup& g = groups_[gi];
    return std::span<const PlannedKey>(plan_).subspan(g.first, g.end - g.first);
  }
  // Sets *gi to a group whose read has completed (its slot's read has its
  // result), waiting for one if none has; false once every read is back.
  bool NextRead(size_t* gi) { return io_.Next(gi); }

  // Keys Get answers: a key whose prefix starts several blocks, or that may
  // end the block before its planned one.
  void LeaveToGet(uint32_t key) { singles_.push_back(key); }
  std::span<const uint32_t> LeftToGet() const { return singles_; }
  // The buffer the batch decodes with, and that Get uses for its keys.
  ReadBuffer& buffer() { return buffer_; }

  // Keeps a copy of `value`, key `key`'s, until the next batch: sets
  // *result's value to its size until ResolveValues points it at the copy.
  void CopyValue(uint32_t key, std::string_view value, GetResult* result);
  // Points every copied value's result at its copy (once no more come).
  void ResolveValues(std::span<GetResult> results) const;

 private:
  // The group of each block the batch has met: an open-addressing table
  // of block numbers, emptied by a new generation rather than cleared.
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  void ResetGroups(size_t keys);
  // The group of block `id`, or a place holding kNoGroup to put it in.
  uint32_t* GroupOf(uint32_t id);

  // Frames of kIoSize bytes, 4 KiB-aligned (O_DIRECT), at least `n`.
  char* Slot(size_t i) { return slots_.get() + i * ReadBuffer::kIoSize; }
  void ReserveSlots(size_t n);
  // Pins and loads for `n` groups (for a source that caches blocks).
  void ReservePins(size_t n);

  struct FreeSlots {
    void operator()(char* p) const { std::free(p); }
  };
  BatchIo io_;
  ReadBuffer buffer_;
  PageTrend pages_;
  std::vector<PlannedKey> plan_;
  std::vector<BatchGroup> groups_;
  std::vector<BlockRead> reads_;
  std::vector<uint32_t> singles_;  // keys read with Get (tied prefixes)
  std::vector<uint64_t> hashes_;   // per key: its filter hash
  std::vector<uint32_t> blocks_;   // per key: its block, or kNoBlock
  std::string values_;
  std::vector<size_t> offsets_;  // per key: its value in values_, or kView
  std::unique_ptr<char[], FreeSlots> slots_;
  size_t slot_count_ = 0;
  std::unique_ptr<BlockCache::Pin[]> pins_;
  std::unique_ptr<BlockCache::Load[]> loads_;
  size_t pin_count_ = 0;
  struct TableEntry {
    uint32_t generation = 0;
    uint32_t id = 0;
    uint32_t group = kNoGroup;
  };
  std::vector<TableEntry> table_;
  uint32_t generation_ = 0;
};

}  // namespace flatbench::arena
