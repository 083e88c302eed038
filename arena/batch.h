#pragma once
// Per-session state of Reader::MultiGet: the batch's plan, its reads, the
// buffers they land in and the values it copies out. Reused from batch to
// batch, so a batch allocates nothing once these have grown to its size.
// Belongs to one thread at a time, like a ReadBuffer.

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "arena/batch_io.h"
#include "arena/block_cache.h"
#include "arena/reader.h"
#include "common/status.h"

namespace flatbench::arena {

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

 private:
  friend class Reader;
  // One key of the batch that needs a data block: its block's group and
  // the key's position.
  struct Planned {
    uint32_t group;
    uint32_t key;
  };
  // One distinct block of the batch and where its bytes are.
  struct Group {
    uint32_t id = 0;     // the block's number in the file
    uint32_t block = 0;  // and in its shard
    uint16_t shard = 0;
    uint32_t first = 0;  // its keys: plan_[first, end)
    uint32_t end = 0;
    uint64_t offset = 0;  // file offset and length of the block's bytes
    uint64_t avail = 0;
    const char* src = nullptr;  // the bytes, once there
    bool read = false;          // it is read: reads_[its index]
    bool from_map = false;      // src points into the map (mmap path)
    bool cache_hit = false;     // src is a frame pinned in pins_
    Status status;
  };

  // The group of each block the batch has met: an open-addressing table
  // of block numbers, emptied by a new generation rather than cleared.
  static constexpr uint32_t kNoGroup = UINT32_MAX;
  void ResetGroups(size_t keys);
  // The group of block `id`, or a place holding kNoGroup to put it in.
  uint32_t* GroupOf(uint32_t id);

  // Frames of kIoSize bytes, 4 KiB-aligned (O_DIRECT), at least `n`.
  char* Slot(size_t i) { return slots_.get() + i * ReadBuffer::kIoSize; }
  void ReserveSlots(size_t n);
  // Pins and loads for `n` groups (cache read path).
  void ReservePins(size_t n);

  struct FreeSlots {
    void operator()(char* p) const { std::free(p); }
  };
  BatchIo io_;
  ReadBuffer buffer_;
  std::vector<Planned> plan_;
  std::vector<Group> groups_;
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
  // What the last batch found when it asked the page cache of its blocks:
  // +1 every one held, -1 every one missing, 0 some of each (Reader::Held).
  int page_trend_ = 0;
  // This batch's answers so far: whether any block was asked, what the
  // first answer let the others be taken as (+1, -1, or 0: ask each), and
  // whether every answer was held, or missing.
  bool asked_ = false;
  int trend_ = 0;
  bool all_held_ = true;
  bool none_held_ = true;
};

}  // namespace flatbench::arena
