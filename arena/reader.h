#pragma once
// Read-only, memory-mapped access to one arena file.
//
// Thread-safety: a Reader is immutable after Open; Get, the iterators and
// every const method may run concurrently from any number of threads without
// locks. A ReadBuffer belongs to one thread at a time.
//
// Lifetime of returned values (as LMDB documents mdb_get): a value from an
// uncompressed file points into the read-only map and stays valid until the
// Reader is destroyed. A value from a zstd-compressed block lives in the
// caller's ReadBuffer and is valid only until the next Get with that buffer
// or the buffer's destruction, whichever comes first. Never write through it.
//
// A file truncated by another process while mapped can still raise SIGBUS;
// Open only guarantees the file was whole when it was opened.

#include <zstd.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arena/block.h"
#include "arena/format.h"
#include "arena/stats.h"
#include "common/status.h"

namespace flatbench::arena {

struct ReaderOptions {
  // Leave index and filter in the map instead of copying them at open. Their
  // checksums are then not checked at open (that would read them); Verify
  // checks them. A corrupt lazy index can misdirect a lookup (a wrong
  // "absent") but never an out-of-bounds read.
  bool lazy = false;
  // Check each block's checksum on every read.
  bool verify_checksums = false;
};

// Per-thread scratch for compressed blocks: one block body and a zstd
// decompression context, allocated once so reads allocate nothing.
class ReadBuffer {
 public:
  ReadBuffer();
  ~ReadBuffer();
  ReadBuffer(const ReadBuffer&) = delete;
  ReadBuffer& operator=(const ReadBuffer&) = delete;
  char* data() { return data_; }
  ZSTD_DCtx* dctx() { return dctx_; }

 private:
  alignas(64) char data_[kBlockPayload];
  ZSTD_DCtx* dctx_;
};

class Reader {
 public:
  // Opens and validates `path`. Errors (kCorruption unless noted):
  //   "not an arena file"; "unsupported version N"; "header checksum
  //   mismatch"; "file size N does not match header (M)"; "... out of
  //   bounds"; "directory checksum mismatch"; "shard S: index checksum
  //   mismatch" / "filter checksum mismatch"; kMissingInput when `path` does
  //   not exist; kIOError when it can't be read or mapped.
  static Result<std::unique_ptr<Reader>> Open(
      const std::string& path, const ReaderOptions& options = {});
  // As Open, on an already open descriptor (not taken over; may be closed
  // after return). `name` is used in messages. Sets POSIX_FADV_RANDOM on
  // `fd` (no readahead), which its other users then share.
  static Result<std::unique_ptr<Reader>> OpenFd(int fd, const std::string& name,
                                                const ReaderOptions& options);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Looks up `key`. Sets *found; when found, *value views the value (see the
  // lifetime rules above). `buffer` may be null for uncompressed files.
  // Errors: kUsage for a key of the wrong width or a compressed block with no
  // buffer; kCorruption for a malformed block or, with verify_checksums, a
  // checksum mismatch. Lock-free; no heap allocation unless it fails.
  Status Get(std::string_view key, bool* found, std::string_view* value,
             ReadBuffer* buffer = nullptr) const;

  // False only when `key` is certainly absent (a filter or shard says so).
  bool MayContain(std::string_view key) const;

  // Fraction of `probes` random keys (splitmix64 from `seed`) absent from
  // the table and landing in a non-empty shard that the filter lets through.
  // Returns 1.0 without a filter. Touches data pages for filter positives.
  double MeasureFalsePositiveRate(uint64_t probes, uint64_t seed) const;

  const ArenaInfo& info() const { return info_; }
  uint32_t key_width() const { return key_width_; }
  bool compressed() const { return compressed_; }

  // Low-level access for the iterator and Verify.
  uint32_t BlockCount(int shard) const { return shards_[shard].block_count; }
  uint64_t BlockPrefix(int shard, uint32_t block) const {
    return shards_[shard].prefixes[block];
  }
  // Decodes block `block` of `shard` (REQUIRES: block < BlockCount(shard)).
  // Returns nullptr or a static error message.
  const char* ReadBlock(int shard, uint32_t block, bool verify,
                        ReadBuffer* buffer, BlockContents* out) const;
  // File offset of a block, for messages.
  uint64_t BlockOffset(int shard, uint32_t block) const;
  // Checks the on-disk index and filter checksums of `shard` (also when
  // opened lazily) and, for compressed files, its block offsets.
  Status CheckShardMetadata(int shard) const;
  bool FilterMayMatch(int shard, std::string_view key) const;

 private:
  // Hot per-shard state: 64 bytes, one cache line per lookup.
  struct alignas(64) Shard {
    const uint64_t* prefixes = nullptr;  // block_count entries
    const uint64_t* offsets = nullptr;   // block_count + 1 (compressed only)
    const char* data = nullptr;          // map + data_offset
    const char* filter = nullptr;        // filter_lines * 64 bytes
    uint64_t data_offset = 0;
    uint64_t data_bytes = 0;
    uint32_t block_count = 0;
    uint32_t filter_lines = 0;
  };

  Reader() = default;
  Status Validate(int fd, uint64_t size, const ReaderOptions& options);
  Status LoadMetadata(int fd);
  Status SetUpShards(const ReaderOptions& options);
  Status CheckBlockOffsets(int shard) const;
  Status BlockError(int shard, uint32_t block, const char* what) const;

  std::string name_;
  const char* map_ = nullptr;
  uint64_t map_size_ = 0;
  uint32_t key_width_ = 0;
  uint32_t probes_ = 0;
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
