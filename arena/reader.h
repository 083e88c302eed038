#pragma once
// Read-only access to one arena file: metadata copied (or mapped) at open,
// data blocks read through the file's read path: a read-only map or, as
// measured alternatives, pread (buffered or O_DIRECT) into the caller's
// ReadBuffer, or pread into a bounded cache of verified blocks. The Reader
// finds a key's block with its filter and index; a block source
// (block_source.h, one per read path) brings the block's bytes.
//
// Thread-safety: a Reader is immutable after Open; Get, the iterators and
// every const method may run concurrently from any number of threads without
// locks. A ReadBuffer belongs to one thread at a time.
//
// Lifetime of returned values (as LMDB documents mdb_get): with the mmap read
// path, a value from an uncompressed file points into the read-only map and
// stays valid until the Reader is destroyed. A value from a zstd-compressed
// block, or read with the pread or direct path, lives in the caller's
// ReadBuffer and is valid only until the next Get with that buffer or the
// buffer's destruction, whichever comes first. With the cache read path the
// value points into a cached block that the ReadBuffer keeps pinned (as
// RocksDB's PinnableSlice pins its block), with the same lifetime: the frame
// cannot be evicted or refilled until the next Get with that buffer, its
// Release() or its destruction. A ReadBuffer therefore holds at most one
// frame, and must let go of it before the Reader is destroyed. Never write
// through a value.
//
// Checksums (verify_checksums): the mmap path checks a block the first time
// this Reader reads it and remembers that in a bitmap (one bit per block);
// the cache path checks a block when it loads it into the cache; the pread
// and direct paths check every read. A block that changes on disk after it
// was checked, and is then evicted from the page cache and read again, is
// not checked again by the mmap path (FORMAT.md, "Checksums"); set
// verify_every_read to check it on every read instead.
//
// A file truncated by another process while mapped can still raise SIGBUS;
// Open only guarantees the file was whole when it was opened.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "arena/block.h"
#include "arena/block_cache.h"
#include "arena/block_index.h"
#include "arena/block_source.h"
#include "arena/format.h"
#include "arena/read_buffer.h"
#include "arena/read_path.h"
#include "arena/reader_options.h"
#include "arena/stats.h"
#include "common/backend.h"
#include "common/status.h"

namespace flatbench::arena {

class BatchScratch;

class Reader {
 public:
  // Opens and validates `path`. Errors (kCorruption unless noted):
  //   "not an arena file"; "unsupported version N"; "header checksum
  //   mismatch"; "file size N does not match header (M)"; "... out of
  //   bounds"; "shard S: regions overlap"; "directory checksum mismatch";
  //   "shard S: index checksum mismatch" / "filter checksum mismatch";
  //   kNotOurFormat for "not an arena file" (bad magic, or shorter than the
  //   magic); kVersionMismatch for "unsupported version N"; kMissingInput
  //   when `path` does not exist; kIOError when it can't be read or mapped,
  //   or (direct read path) its file system refuses O_DIRECT. Every message
  //   starts with `path`.
  static Result<std::unique_ptr<Reader>> Open(
      const std::string& path, const ReaderOptions& options = {});
  // As Open, on an already open descriptor (not taken over; may be closed
  // after return). `name` is used in messages. Sets POSIX_FADV_RANDOM on
  // `fd` (no readahead), which its other users then share. The direct read
  // path needs a path to reopen with O_DIRECT: kUsage here.
  static Result<std::unique_ptr<Reader>> OpenFd(int fd, const std::string& name,
                                                const ReaderOptions& options);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Looks up `key`. Sets *found; when found, *value views the value (see the
  // lifetime rules above). `buffer` may be null only for an uncompressed
  // file read through the map (NeedsBuffer() false). Errors: kUsage for a
  // key of the wrong width or a missing buffer; kCorruption "PATH: WHAT at
  // offset N" for a malformed block or, with verify_checksums, "block
  // checksum mismatch"; kIOError when a pread fails. Lock-free; no heap
  // allocation unless it fails. When many blocks start with the key's first
  // 8 bytes, it reads about log2(their number) + 1 blocks, not all of them.
  Status Get(std::string_view key, bool* found, std::string_view* value,
             ReadBuffer* buffer = nullptr) const;

  // A batch of lookups (reader_batch.cc): results[i] answers keys[i]
  // exactly as Get would, for keys in any order, repeated or absent; each
  // key has its own status, so a corrupt or unreadable block fails only the
  // keys it holds (with Get's messages). Each key's filter and index are
  // consulted, and every data block the batch needs that is not in memory
  // (the map's resident pages, the cache's frames) is submitted for reading
  // as soon as the batch meets it (BatchIo), so the reads are in flight
  // together; each block is decoded and checked as Get checks it, as it
  // arrives.
  // Values stay valid until the scratch's next batch or Release(): they
  // point into their blocks' bytes (the map, a frame the scratch keeps
  // pinned, a slot of the scratch) or, decompressed, into the scratch's
  // copies. Release the scratch before the Reader is destroyed.
  // REQUIRES: results.size() == keys.size().
  void MultiGet(std::span<const std::string_view> keys,
                std::span<GetResult> results, BatchScratch* scratch) const;

  // Fraction of `probes` random keys (splitmix64 from `seed`), each put in a
  // non-empty shard chosen uniformly, that are absent from the table and
  // that the filter lets through (0.0 when every shard is empty).
  // Returns 1.0 without a filter. Touches data pages for filter positives.
  double MeasureFalsePositiveRate(uint64_t probes, uint64_t seed) const;

  const ArenaInfo& info() const { return info_; }
  uint32_t key_width() const { return key_width_; }
  bool compressed() const { return compressed_; }
  ReadPath read_path() const { return read_path_; }
  // Whether Get needs a ReadBuffer (compressed file, or a read path other
  // than mmap).
  bool NeedsBuffer() const { return compressed_ || needs_buffer_; }
  // When Get checks a block with verify_checksums (BlockSource's words).
  const char* checksum_rule() const { return source_->ChecksumRule(); }
  // The block cache of the cache read path, else null.
  const BlockCache* cache() const { return source_->cache(); }
  // How the cache path loads blocks absent from the page cache: "O_DIRECT",
  // or why they are read with buffered pread; empty on the other paths.
  const std::string& cache_loads() const { return source_->cache_loads(); }
  // posix_fadvise / madvise calls that failed at open, one line each (empty
  // when all took effect). Not fatal: reads stay correct, but the kernel may
  // read ahead around each block, which flatters or hurts cold figures.
  const std::vector<std::string>& AdviceWarnings() const {
    return advice_warnings_;
  }

  // Low-level access for the iterator and Verify.
  uint32_t BlockCount(int shard) const { return shards_[shard].block_count; }
  uint64_t BlockPrefix(int shard, uint32_t block) const;
  // Decodes block `block` of `shard` through the map (REQUIRES: block <
  // BlockCount(shard)). Errors as DecodeBlock, plus "bad block offset".
  Status ReadBlock(int shard, uint32_t block, bool verify, ReadBuffer* buffer,
                   BlockContents* out) const;
  // The last block of `shard` whose first key is <= `key` (kNoBlock if
  // none), read through the map. Binary search over the first keys of the
  // blocks that share `key`'s 8-byte prefix. REQUIRES: key is key_width
  // bytes and its first byte is `shard`.
  Status SeekBlock(int shard, std::string_view key, ReadBuffer* buffer,
                   uint32_t* block) const;
  // File offset of a block, for messages.
  uint64_t BlockOffset(int shard, uint32_t block) const;
  // Checks the on-disk index and filter checksums of `shard` (also when
  // opened lazily) and, for compressed files, its block offsets.
  Status CheckShardMetadata(int shard) const;
  bool FilterMayMatch(int shard, std::string_view key) const;

 private:
  // Hot per-shard state: 64 bytes, one cache line per lookup. The index is
  // read with LoadU64 (unaligned-safe), wherever it lives.
  struct alignas(64) Shard {
    const char* prefixes = nullptr;  // block_count u64 entries
    const char* offsets = nullptr;   // block_count + 1 u64 (compressed only)
    const char* filter = nullptr;    // filter_lines * 64 bytes
    uint64_t data_offset = 0;
    uint64_t data_bytes = 0;
    uint32_t block_count = 0;
    uint32_t filter_lines = 0;
    uint32_t first_block = 0;  // number of the shard's block 0 in the file
    // The shard's mean keys per block: where a hit's key lines likely sit
    // before its block is read (PrefetchBlock).
    uint32_t count_hint = 0;
  };
  static_assert(sizeof(Shard) == 64);

  Reader() = default;
  // Opening (reader_open.cc). `path` is null for OpenFd.
  static Result<std::unique_ptr<Reader>> OpenWith(int fd,
                                                  const std::string* path,
                                                  const std::string& name,
                                                  const ReaderOptions& options);
  Status Validate(int fd, uint64_t size, const ReaderOptions& options);
  Status CheckDirectory(const char* dir, uint64_t data_end, uint64_t keys);
  Status LoadMetadata(int fd);
  Status SetUpShards(const ReaderOptions& options);
  // Attaches the read path's source to the mapped file.
  Status AttachSource();
  void FillInfo(const Header& h, const ReaderOptions& options);
  Status CheckBlockOffsets(int shard) const;

  // Reading (reader.cc).
  // Where a block is; "bad block offset" when a (lazily used) compressed
  // index points outside the shard.
  Status LocateBlock(int shard, uint32_t block, BlockAddress* at) const;
  // Reads and decodes a block with the read path's source, or through the
  // map when `via_map`. On the cache path `pin` holds the cached block that
  // *out views (release it when done with *out).
  Status FetchBlock(int shard, uint32_t block, bool via_map, bool verify,
                    ReadBuffer* buffer, BlockContents* out,
                    BlockCache::Pin* pin = nullptr) const;
  // The prefix that bounds `block`'s keys from above: the next block's
  // first-key prefix, or the shard's last possible prefix.
  uint64_t PrefixEnd(int shard, uint32_t block) const;
  // Starts loading the lines a hit in `block` will read: its header, the key
  // lines around the position interpolated from `prefix` between `low` and
  // `high` (the block's and the next block's first-key prefixes), and the
  // value end there. A hint only (reader.cc).
  void PrefetchBlock(const Shard& s, uint32_t block, uint64_t prefix,
                     uint64_t low, uint64_t high) const;
  Status SearchTiedBlocks(int shard, std::string_view key, uint64_t prefix,
                          uint32_t last, bool via_map, ReadBuffer* buffer,
                          uint32_t* block) const;

  // MultiGet's steps (reader_batch.cc).
  void PlanKeys(std::span<const std::string_view> keys,
                std::span<GetResult> results, BatchScratch* b) const;
  void HintBlocks(std::span<const std::string_view> keys,
                  BatchScratch* b) const;
  void PlaceBlocks(std::span<const std::string_view> keys,
                   BatchScratch* b) const;
  void AnswerBlocks(std::span<const std::string_view> keys,
                    std::span<GetResult> results, BatchScratch* b) const;
  void AnswerGroup(std::span<const std::string_view> keys,
                   std::span<GetResult> results, BatchScratch* b, size_t gi,
                   Status read) const;
  void AnswerLeftToGet(std::span<const std::string_view> keys,
                       std::span<GetResult> results, BatchScratch* b) const;

  std::string name_;
  // Reads the data blocks (read path `read_path_`); borrows the map.
  std::unique_ptr<BlockSource> source_;
  ReadPath read_path_ = ReadPath::kMmap;
  bool needs_buffer_ = false;  // source_->NeedsBuffer()
  std::vector<std::string> advice_warnings_;
  const char* map_ = nullptr;
  uint64_t map_size_ = 0;
  uint32_t key_width_ = 0;
  uint32_t probes_ = 0;
  uint64_t total_blocks_ = 0;
  bool compressed_ = false;
  bool verify_ = false;
  std::array<Shard, kNumShards> shards_{};
  std::array<ShardEntry, kNumShards> entries_{};
  std::vector<uint64_t> owned_index_;
  struct alignas(64) FilterLine {
    char bytes[kFilterLineBytes];
  };
  std::vector<FilterLine> owned_filter_;
  ArenaInfo info_;
};

}  // namespace flatbench::arena
