#pragma once
// One shard of an arena file built apart from the file: its data blocks,
// block index and filter laid out from the shard's first block, with every
// offset relative to it. Its size and bytes do not depend on where it lands
// (the shard starts on a kBlockSize boundary and every alignment inside it
// divides kBlockSize); only the checksums, seeded with absolute offsets
// (FORMAT.md), do, and WriteShard fills them in as it appends the shard.
// So shards can be built by several threads and written in shard order,
// and the file's bytes are the same as when one thread does both.

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arena/block_builder.h"
#include "arena/file_writer.h"
#include "arena/format.h"
#include "common/backend.h"
#include "common/status.h"

namespace flatbench::arena {

struct BuilderOptions;

struct ShardImage {
  int shard = -1;
  // Offsets relative to the shard's first block; checksums not yet set.
  ShardEntry entry;
  std::string bytes;
  // Where each block starts in `bytes`; its checksum is still zero.
  std::vector<uint64_t> blocks;
  uint64_t index_bytes = 0;
  uint64_t filter_bytes = 0;
};

class ShardBuilder {
 public:
  // `options` must outlive the builder.
  explicit ShardBuilder(const BuilderOptions& options);
  ShardBuilder(const ShardBuilder&) = delete;
  ShardBuilder& operator=(const ShardBuilder&) = delete;

  // Starts shard `shard`, dropping anything not taken by Finish.
  void Start(int shard);
  // REQUIRES (the caller checked): keys of the shard, ascending, of the
  // options' width, values within MaxValueSize.
  void Add(std::string_view key, std::string_view value);
  // The shard's image; Start must come before the next Add.
  ShardImage Finish();

 private:
  void FlushBlock();

  const BuilderOptions& options_;
  const uint32_t probes_;
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx_;
  ShardImage image_;
  BlockBuilder block_;
  std::vector<uint64_t> prefixes_;  // the shard's index
  std::vector<uint64_t> offsets_;   // its compressed blocks' offsets
  std::vector<uint64_t> hashes_;    // its filter hashes
  std::vector<char> block_buf_;
  std::vector<char> compressed_;
};

// A shard built whole from its pairs (BuildShard), with what Builder::Add
// would have counted of them, for Builder::AddShard.
struct BuiltShard {
  ShardImage image;
  uint64_t key_bytes = 0;
  uint64_t value_bytes = 0;
  std::string first_key;
  std::string last_key;
};

// Builds the shard of `run`'s keys (their first byte) from every pair of
// it. Checks what Builder::Add checks: kCorruption, naming the pair's
// position in the run, for a key of another width, a value above
// MaxValueSize, a key out of order or repeated, or a key of another shard.
// An empty run gives an empty BuiltShard (shard -1).
Result<BuiltShard> BuildShard(const BuilderOptions& options,
                              const PairRun& run);

// Appends `image` at the writer's next kBlockSize boundary, filling in its
// checksums from the absolute offsets, and returns its directory entry.
Result<ShardEntry> WriteShard(FileWriter* writer, ShardImage* image);

}  // namespace flatbench::arena
