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
// Shards are independent (builder_shard.h). A shard may come built whole
// (BuildShard on any thread, then AddShard: gen's way, with its generator's
// threads). Pairs given one by one (import) are built by the caller's
// thread with one job; with `jobs` > 1 each shard's pairs are copied and
// built by a thread of its own, up to `jobs` shards at once, and the images
// are appended in shard order by the caller's thread. The bytes written are
// the same either way.
//
// Memory is bounded by the shards in flight: with one job, one shard's
// image (its bytes plus its index and filter hashes); with `jobs` > 1,
// jobs + 1 shards' pairs and images; shards built whole are the caller's
// (dataset::EstimateGeneratorBytes counts gen's).

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "arena/builder_shard.h"
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
  // `jobs` (0 counts as 1): threads building shards at once.
  static Result<std::unique_ptr<Builder>> Create(const std::string& path,
                                                 const BuilderOptions& options,
                                                 unsigned jobs = 1);
  // Removes the temporary file unless Finish succeeded.
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // Adds one entry. Keys must be strictly ascending (bytewise), exactly
  // key_width bytes, with values of at most MaxValueSize(key_width) bytes.
  // The first error (kCorruption for bad input, kIOError for writes) is kept,
  // the temporary file removed, and every later call returns it.
  Status Add(std::string_view key, std::string_view value);
  // Appends a shard built whole (BuildShard, on any thread) after the
  // pairs added so far, as Add of its pairs would: its first key must
  // follow the last key added (kCorruption otherwise, kept as Add's
  // errors are). A shard added whole is closed: a later Add of a key of
  // the same shard is refused (kUsage). An empty BuiltShard adds nothing.
  Status AddShard(BuiltShard* shard);
  // Writes index, filters, directory and header, fsyncs, renames into place
  // and fsyncs the directory. Returns the first error if any.
  Status Finish();

  const Status& status() const { return status_; }
  // Valid after a successful Finish.
  const BuildStats& stats() const { return stats_; }

 private:
  // A shard handed to a thread: its pairs in, its image out.
  struct ShardJob {
    int shard = -1;
    std::string pairs;  // key, u16 value length, value; repeated
    ShardImage image;
    std::jthread thread;
  };

  Builder(std::string path, const BuilderOptions& options, unsigned jobs,
          std::unique_ptr<FileWriter> writer);
  Status Fail(Status st);
  // Ends the current shard: writes it (one job) or hands it to a thread,
  // then writes finished shards while more than `keep` are in flight.
  Status EndShard(size_t keep);
  Status Write(ShardImage* image);

  const std::string path_;
  const std::string tmp_path_;
  const BuilderOptions options_;
  const unsigned jobs_;
  std::unique_ptr<FileWriter> writer_;
  Status status_;
  bool finished_ = false;
  uint64_t start_micros_ = 0;

  std::array<ShardEntry, kNumShards> shards_{};
  int shard_ = -1;           // shard of the last key, -1 before the first key
  bool shard_open_ = false;  // Add may still add to shard_
  std::string last_key_;
  ShardBuilder shard_builder_;            // one job
  std::unique_ptr<ShardJob> collecting_;  // jobs > 1: the current shard
  BuildStats stats_;
  // Last: its threads are joined before anything they read goes.
  std::deque<std::unique_ptr<ShardJob>> flight_;
};

}  // namespace flatbench::arena
