// Golden bytes: a small file built from fixed input must not change unless
// the format does (then bump kFormatVersion, update FORMAT.md and these).

#include <xxhash.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "arena/reader.h"
#include "common/hex.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

// Recorded from the first build of format version 2.
constexpr size_t kGoldenSize = 32896;
constexpr const char* kGoldenDigest = "7cecef1a7926297f";

std::string GoldenFile(const testing::TempDir& dir, bool compress) {
  testing::Model model;
  for (int i = 0; i < 50; ++i) {
    std::string key(20, '\0');
    for (int j = 0; j < 20; ++j)
      key[j] = static_cast<char>((i * 37 + j * 11) & 0xff);
    key[0] = static_cast<char>(i < 25 ? 0x10 : 0xa0);  // two shards
    model[key] = std::string(static_cast<size_t>(i % 9),
                             static_cast<char>('a' + i % 26));
  }
  BuilderOptions options;
  options.record_build_time = false;
  options.compress = compress;
  const std::string path = dir.File(compress ? "z.arena" : "g.arena");
  testing::BuildFile(path, model, options);
  return testing::ReadAll(path);
}

TEST_CASE("golden bytes of a small file", "[arena][golden]") {
  testing::TempDir dir;
  const std::string bytes = GoldenFile(dir, false);
  const uint64_t h = XXH3_64bits(bytes.data(), bytes.size());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  CAPTURE(bytes.size(), ToHex(bytes.substr(0, 128)));
  // Header: magic, version 2, header size 128, block size 4096, width 20.
  REQUIRE(ToHex(bytes.substr(0, 24)) ==
          "46424152454e411a02000000800000000010000014000000");
  REQUIRE(bytes.size() == kGoldenSize);
  REQUIRE(std::string(hex) == kGoldenDigest);
}

// zstd's output may differ across library versions, so the compressed file
// pins only what this code decides: the header and the flag.
TEST_CASE("golden header of a small compressed file", "[arena][golden]") {
  testing::TempDir dir;
  const std::string bytes = GoldenFile(dir, true);
  REQUIRE(ToHex(bytes.substr(0, 32)) ==
          "46424152454e411a02000000800000000010000014000000"
          "010000000a000000");
}

// Version 2's layout rule, read straight from the directory: each shard's
// index starts on a fresh page after its data, and the directory follows the
// last shard at the next multiple of 64 (no page of padding).
TEST_CASE("each shard's index starts on its own page", "[arena][golden]") {
  testing::TempDir dir;
  const bool compress = GENERATE(false, true);
  const std::string bytes = GoldenFile(dir, compress);
  const uint64_t dir_off = LoadU64(bytes.data() + 64);
  REQUIRE(dir_off + kDirectorySize == bytes.size());
  uint64_t last_end = 0;
  int shards = 0;
  for (size_t s = 0; s < kNumShards; ++s) {
    const ShardEntry e =
        DecodeShardEntry(bytes.data() + dir_off + s * kShardEntrySize);
    if (e.block_count == 0) continue;
    ++shards;
    CAPTURE(s);
    REQUIRE(e.index_offset % kBlockSize == 0);
    REQUIRE(e.index_offset >= e.data_offset + e.data_bytes);
    REQUIRE(e.index_offset - (e.data_offset + e.data_bytes) < kBlockSize);
    REQUIRE(e.filter_offset % kFilterLineBytes == 0);
    last_end = e.filter_offset + uint64_t{e.filter_lines} * kFilterLineBytes;
  }
  REQUIRE(shards == 2);
  REQUIRE(dir_off == (last_end + 63) / 64 * 64);
}

}  // namespace
}  // namespace flatbench::arena
