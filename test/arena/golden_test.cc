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

// Recorded from the first build of format version 1.
constexpr size_t kGoldenSize = 25344;
constexpr const char* kGoldenDigest = "59537c015be18bb7";

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
  // Header: magic, version 1, header size 128, block size 4096, width 20.
  REQUIRE(ToHex(bytes.substr(0, 24)) ==
          "46424152454e411a01000000800000000010000014000000");
  REQUIRE(bytes.size() == kGoldenSize);
  REQUIRE(std::string(hex) == kGoldenDigest);
}

// zstd's output may differ across library versions, so the compressed file
// pins only what this code decides: the header and the flag.
TEST_CASE("golden header of a small compressed file", "[arena][golden]") {
  testing::TempDir dir;
  const std::string bytes = GoldenFile(dir, true);
  REQUIRE(ToHex(bytes.substr(0, 32)) ==
          "46424152454e411a01000000800000000010000014000000"
          "010000000a000000");
}

}  // namespace
}  // namespace flatbench::arena
