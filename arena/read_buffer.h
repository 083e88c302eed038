#pragma once
// Per-thread scratch for a Reader's reads, allocated once so reads allocate
// nothing: a decompressed block body, a zstd context, a 4 KiB-aligned I/O
// area for the sources that read into the caller's memory (two pages: a
// packed compressed block may straddle a page boundary), and the cached
// block (cache read path) that the last Get's value points into.
//
// Thread-safety: a ReadBuffer belongs to one thread at a time. Lifetime: it
// must let go of its pinned frame (Release, or its destruction) before the
// Reader it read from is destroyed (reader.h, "Lifetime").

#include <zstd.h>

#include <cstdint>

#include "arena/block_cache.h"
#include "arena/format.h"
#include "arena/page_cache_probe.h"

namespace flatbench::arena {

class ReadBuffer {
 public:
  ReadBuffer() : dctx_(ZSTD_createDCtx()) {}
  ~ReadBuffer() { ZSTD_freeDCtx(dctx_); }
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;
  char* data() { return data_; }
  ZSTD_DCtx* dctx() { return dctx_; }
  char* io() { return io_; }
  static constexpr size_t kIoSize = 2 * kBlockSize;
  // Data blocks Get has read with this buffer (a statistic for tests and
  // micro-benchmarks: a lookup reads one block, two at a shard's edge, and
  // about log2(n) + 1 when n blocks start with the key's first 8 bytes).
  uint64_t blocks_read() const { return blocks_read_; }
  void CountBlockRead() { ++blocks_read_; }
  // Of those, blocks the cache path loaded with O_DIRECT (Reader's
  // cache_loads()).
  uint64_t direct_reads() const { return direct_reads_; }
  void CountDirectRead() { ++direct_reads_; }
  // The cached block (cache read path) that the last Get's value points
  // into; Get replaces it. Release() lets it go before the Reader goes.
  BlockCache::Pin* pin() { return &pin_; }
  // This thread's page cache questions for its single reads (cache path).
  MissStreak* pages() { return &pages_; }
  void Release() { pin_.Release(); }

 private:
  alignas(kBlockSize) char io_[kIoSize];
  alignas(64) char data_[kBlockPayload];
  ZSTD_DCtx* dctx_;
  uint64_t blocks_read_ = 0;
  uint64_t direct_reads_ = 0;
  BlockCache::Pin pin_;
  MissStreak pages_;
};

}  // namespace flatbench::arena
