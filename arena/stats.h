#pragma once
// What an open arena file holds, for `flatbench info` and reports.

#include <array>
#include <cstdint>
#include <string>

#include "arena/format.h"
#include "arena/read_path.h"

namespace flatbench::arena {

struct ShardInfo {
  uint64_t key_count = 0;
  uint64_t block_count = 0;
  uint64_t data_offset = 0;
  uint64_t data_bytes = 0;
  uint64_t index_bytes = 0;
  uint64_t filter_bytes = 0;
};

struct ArenaInfo {
  std::string path;
  uint32_t format_version = 0;
  uint32_t key_width = 0;
  bool compressed = false;
  uint32_t bloom_bits_per_key = 0;
  uint32_t bloom_probes = 0;
  bool lazy = false;              // index and filter left in the map
  bool verify_checksums = false;  // every read checks its block
  ReadPath read_path = ReadPath::kMmap;
  uint64_t file_bytes = 0;
  uint64_t key_count = 0;
  uint64_t value_bytes = 0;
  uint64_t block_count = 0;
  uint64_t data_bytes = 0;    // sum of shards' data regions
  uint64_t index_bytes = 0;   // on disk
  uint64_t filter_bytes = 0;  // on disk
  // Index and filter bytes copied into memory at open (0 when lazy).
  uint64_t resident_bytes = 0;
  uint32_t nonempty_shards = 0;
  uint64_t build_micros = 0;        // 0 when not recorded
  uint64_t build_unix_seconds = 0;  // 0 when not recorded
  // Mean over non-empty shards of the computed filter false-positive rate
  // (1.0 without a filter).
  double expected_fp_rate = 1.0;
  std::array<ShardInfo, kNumShards> shards{};
};

}  // namespace flatbench::arena
