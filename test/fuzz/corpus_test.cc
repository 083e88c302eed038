// Replays the fuzz seed corpus through the fuzz entry function, so every
// build runs it (the libFuzzer binary itself needs -Dfuzz=true and clang).

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "test/arena/test_util.h"
#include "test/fuzz/fuzz_entry.h"

namespace flatbench::arena {
namespace {

TEST_CASE("fuzz corpus replays without crashing", "[arena][fuzz]") {
  const char* dir = std::getenv("ARENA_CORPUS");
  REQUIRE(dir != nullptr);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    const std::string bytes = testing::ReadAll(entry.path().string());
    REQUIRE(bytes.size() < 32 * 1024);
    const int opened = FuzzArenaBytes(
        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (name.rfind("valid_", 0) == 0 || name == "flip_block.bin") {
      // A flipped data block is caught when a read checks it, not at open.
      REQUIRE(opened == 5);
    } else {
      REQUIRE(opened == 0);
    }
    ++files;
  }
  REQUIRE(files >= 8);
}

TEST_CASE("fuzz entry survives mutations of a valid file and refuses them",
          "[arena][fuzz]") {
  const char* dir = std::getenv("ARENA_CORPUS");
  REQUIRE(dir != nullptr);
  const std::string base =
      testing::ReadAll(std::string(dir) + "/valid_zstd_w52.bin");
  REQUIRE(!base.empty());
  testing::Rng rng(77);
  int rejected = 0, truncated_opened = 0;
  for (int i = 0; i < 300; ++i) {
    std::string bytes = base;
    const int edits = 1 + static_cast<int>(rng.Below(4));
    for (int e = 0; e < edits; ++e) {
      bytes[rng.Below(bytes.size())] = static_cast<char>(rng.Next());
    }
    const bool truncated = i % 10 == 0;
    if (truncated) bytes.resize(rng.Below(bytes.size()));
    const int opened = FuzzArenaBytes(
        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    CAPTURE(i, opened);
    REQUIRE(opened >= 0);
    REQUIRE(opened <= 5);
    rejected += opened == 0;
    truncated_opened += truncated && opened > 0;
  }
  // A truncated file never opens (its header records the file size), and
  // random edits land in checksummed metadata often enough to be refused.
  CHECK(truncated_opened == 0);
  CHECK(rejected >= 150);  // 264 of 300 at seed 77 when written.
}

}  // namespace
}  // namespace flatbench::arena
