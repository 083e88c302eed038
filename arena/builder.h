#pragma once
// Streaming builder of one arena file (one table).
//
// Layout written (FORMAT.md has every byte):
//
//   [header page: 128-byte header, zero padding to 4096]
//   for each non-empty shard, in shard order:
//     [data block 0][pad to 4 KiB][data block 1] ... [last data block]
//     [pad to 4 KiB][block index][pad to 64][bloom filter][pad to 4 KiB]
//   [pad to 64][shard directory: 256 x 64 bytes]
//
// The header is written last, so a file cut short anywhere has no magic.
//
// Memory is bounded by one shard: its block index (8 bytes per block, 16
// more when compressed) and the 8-byte filter hash of each of its keys.

#include <zstd.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arena/block_builder.h"
#include "arena/file_writer.h"
#include "arena/format.h"
#include "common/status.h"

namespace flatbench::arena {

struct BuilderOptions {
  // Width of every key, kMinKeyWidth..kMaxKeyWidth.
  uint32_t key_width = 20;
  // Bloom filter bits per key, 0..kMaxBloomBitsPerKey; 0 = no filter.
  uint32_t bloom_bits_per_key = 10;
  // zstd-compress blocks that shrink (FORMAT.md: compressed blocks are
  // packed back to back, not page-aligned).
  bool compress = false;
  int zstd_level = 3;
  // Write the build duration and time into the header. Off makes the file a
  // pure function of its contents (golden tests).
  bool record_build_time = true;
};

// What a finished build wrote.
struct BuildStats {
  uint64_t key_count = 0;
  uint64_t key_bytes = 0;
  uint64_t value_bytes = 0;
  uint64_t block_count = 0;
  uint64_t index_bytes = 0;
  uint64_t filter_bytes = 0;
  uint64_t file_bytes = 0;
  uint64_t build_micros = 0;
};

class Builder {
 public:
  // Starts building `path`. Writes go to `path + ".tmp"`, which Finish
  // fsyncs and renames into place (replacing any file at `path`). Errors:
  // kUsage for bad options, kIOError if the temporary file can't be created.
  static Result<std::unique_ptr<Builder>> Create(const std::string& path,
                                                 const BuilderOptions& options);
  // Removes the temporary file unless Finish succeeded.
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // Adds one entry. Keys must be strictly ascending (bytewise), exactly
  // key_width bytes, with values of at most MaxValueSize(key_width) bytes.
  // The first error (kCorruption for bad input, kIOError for writes) is kept,
  // the temporary file removed, and every later call returns it.
  Status Add(std::string_view key, std::string_view value);
  // Writes index, filters, directory and header, fsyncs, renames into place
  // and fsyncs the directory. Returns the first error if any.
  Status Finish();

  const Status& status() const { return status_; }
  // Valid after a successful Finish.
  const BuildStats& stats() const { return stats_; }

 private:
  Builder(std::string path, const BuilderOptions& options,
          std::unique_ptr<FileWriter> writer);
  Status Fail(Status st);
  Status StartShard(int shard);
  Status FinishShard();
  Status FlushBlock();

  const std::string path_;
  const std::string tmp_path_;
  const BuilderOptions options_;
  const uint32_t probes_;
  std::unique_ptr<FileWriter> writer_;
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx_;
  Status status_;
  bool finished_ = false;
  uint64_t start_micros_ = 0;

  std::array<ShardEntry, kNumShards> shards_{};
  int shard_ = -1;  // shard being written, -1 before the first key
  std::string last_key_;
  BlockBuilder block_;
  std::vector<uint64_t> prefixes_;  // current shard's index
  std::vector<uint64_t> offsets_;   // current shard's block offsets
  std::vector<uint64_t> hashes_;    // current shard's filter hashes
  std::vector<char> block_buf_;
  std::vector<char> compressed_;
  BuildStats stats_;
};

}  // namespace flatbench::arena
