#pragma once
// Full integrity walk of one arena file.

#include <array>
#include <cstdint>
#include <string>

#include "arena/format.h"
#include "arena/reader.h"
#include "common/status.h"

namespace flatbench::arena {

struct VerifyReport {
  uint64_t key_count = 0;
  uint64_t block_count = 0;
  uint64_t value_bytes = 0;
  uint64_t checksums_checked =
      0;  // header, directory, indexes, filters, blocks
  std::array<uint64_t, kNumShards> shard_keys{};
};

// Checks every index, filter and block checksum (also when `reader` was
// opened lazily), strict key order within and across blocks, that every key
// sits in the shard of its first byte, that each index entry matches its
// block's first key, that the filter admits every key, and that per-shard
// and total key and value counts match the directory and header. Stops at
// the first problem: kCorruption naming the shard and offset. Fills
// `report` with what was walked so far.
Status Verify(const Reader& reader, VerifyReport* report);

// Opens `path` (see Reader::Open for open errors) and runs Verify.
Status VerifyFile(const std::string& path, VerifyReport* report);

}  // namespace flatbench::arena
