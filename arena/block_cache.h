#pragma once
// A bounded cache of verified data blocks for the arena's cached read path
// (ReadPath::kCache): a block is read with pread(2) once, its checksum is
// checked once, and later reads of it are plain memory reads.
//
// Design (after vmcache, Leis et al., SIGMOD 2023, with a fixed pool of
// slots instead of a file-sized mapping):
//   - `slots` 4 KiB frames in one anonymous mapping (2 MiB pages where the
//     kernel allows), whose memory arrives with the first read into it, or
//     is the memory of a cache this process closed before;
//   - one 32-bit word per block of the file: 0 (not cached), kLoading, or
//     slot + 1. A hit is one load of that word, a pin, and a tag check;
//   - per slot: the block it holds (its tag), a pin count and a reference
//     bit for CLOCK eviction. A slot is reused only when nobody pins it.
// No locks: readers and loaders agree through atomics (the pin/tag pair is
// a Dekker handshake in sequentially consistent order), so concurrent
// readers never wait for each other. A reader that finds its block being
// loaded by another thread reads it itself, into its own buffer, without
// caching it (the caller's fallback).
//
// Hand-written: no packaged cache holds raw file blocks with lock-free pins
// (RocksDB's caches are internal to RocksDB; CacheLib is not in Debian).

#include <atomic>
#include <cstdint>
#include <memory>

#include "arena/format.h"
#include "common/status.h"

namespace flatbench::arena {

class BlockCache {
 public:
  // A cache for `blocks` blocks (numbered 0..blocks-1 by the caller) in at
  // most `capacity_bytes` of frames (at least 64 frames, at most one per
  // block). kIOError when the frames cannot be mapped.
  static Result<std::unique_ptr<BlockCache>> Create(uint64_t blocks,
                                                    uint64_t capacity_bytes);
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // A pinned frame: while held, the frame's bytes do not change. Release it
  // (or let it go out of scope) before the BlockCache is destroyed.
  class Pin {
   public:
    Pin() = default;
    ~Pin() { Release(); }
    Pin(const Pin&) = delete;
    Pin& operator=(const Pin&) = delete;
    const char* data() const { return data_; }
    bool held() const { return cache_ != nullptr; }
    void Release();

   private:
    friend class BlockCache;
    BlockCache* cache_ = nullptr;
    uint32_t block_ = 0;
    uint32_t slot_ = 0;
    const char* data_ = nullptr;
  };

  // Pins `block`'s frame when it is cached (and releases what `pin` held
  // before). Lock-free, no allocation. When `pin` already holds `block`'s
  // frame it is kept as it is: no atomic read-modify-write.
  bool Lookup(uint32_t block, Pin* pin);

  // The frame `block` sat in when this was called, or null: a prefetch
  // hint only. It may be evicted and refilled at any moment; never read it
  // without a Pin.
  const char* FrameHint(uint32_t block) const {
    const uint32_t w = where_[block].load(std::memory_order_relaxed);
    if (w == 0 || w == kLoading) return nullptr;
    __builtin_prefetch(&slot_[w - 1], 1);
    return Frame(w - 1);
  }

  // A frame claimed for loading `block`: fill data() (kBlockSize bytes),
  // check it, then Publish() or Abandon(). Abandoned on destruction.
  class Load {
   public:
    Load() = default;
    ~Load() { Abandon(); }
    Load(const Load&) = delete;
    Load& operator=(const Load&) = delete;
    char* data() const { return data_; }
    bool claimed() const { return cache_ != nullptr; }
    // Makes the frame visible to readers and moves it into `pin`.
    void Publish(Pin* pin);
    // Frees the frame and the block's claim (after a failed read or check,
    // so the next reader tries again and sees the same error).
    void Abandon();

   private:
    friend class BlockCache;
    BlockCache* cache_ = nullptr;
    uint32_t block_ = 0;
    uint32_t slot_ = 0;
    char* data_ = nullptr;
  };

  // Claims `block` and a free (or evicted) frame for it. Returns false when
  // another thread is loading or has just loaded the block, or when every
  // frame is pinned: the caller then reads the block without the cache.
  bool BeginLoad(uint32_t block, Load* load);

  uint64_t slots() const { return slots_; }
  uint64_t frame_bytes() const { return slots_ * kBlockSize; }
  // Blocks loaded and evicted so far (statistics for tests and info).
  uint64_t loads() const { return loads_.load(std::memory_order_relaxed); }
  uint64_t evictions() const {
    return evictions_.load(std::memory_order_relaxed);
  }
  // Whether the frames are the memory of a cache this process closed
  // before (block_cache.cc, SpareFrames), rather than new memory.
  bool reused_frames() const { return reused_frames_; }

 private:
  struct alignas(16) Slot {
    std::atomic<uint32_t> tag{0};  // block + 1, 0 free, kBusy while changing
    std::atomic<uint32_t> pins{0};
    std::atomic<uint32_t> referenced{0};
  };
  static constexpr uint32_t kLoading = UINT32_MAX;
  static constexpr uint32_t kBusy = UINT32_MAX;

  BlockCache() = default;
  Status MapFrames();
  bool ClaimFrame(uint32_t* slot);
  void Unpin(uint32_t slot);
  char* Frame(uint32_t slot) const {
    return frames_ + uint64_t{slot} * kBlockSize;
  }

  uint64_t blocks_ = 0;
  uint64_t slots_ = 0;
  char* map_ = nullptr;  // frames_, aligned to 2 MiB inside it
  uint64_t map_bytes_ = 0;
  char* frames_ = nullptr;
  bool reused_frames_ = false;
  std::unique_ptr<std::atomic<uint32_t>[]> where_;  // per block
  std::unique_ptr<Slot[]> slot_;
  std::atomic<uint64_t> hand_{0};
  std::atomic<uint64_t> loads_{0};
  std::atomic<uint64_t> evictions_{0};
};

}  // namespace flatbench::arena
