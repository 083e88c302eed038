// Replays the delta seed corpus and mutations of a valid delta through the
// delta fuzz entry, so every build runs it.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "test/arena/test_util.h"
#include "test/fuzz/delta_entry.h"

namespace flatbench::arena {
namespace {

int Run(const std::string& bytes) {
  return FuzzDeltaBytes(reinterpret_cast<const uint8_t*>(bytes.data()),
                        bytes.size());
}

TEST_CASE("delta corpus replays: valid deltas decode and merge",
          "[arena][fuzz]") {
  const char* dir = std::getenv("DELTA_CORPUS");
  REQUIRE(dir != nullptr);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    const int decoded = Run(testing::ReadAll(entry.path().string()));
    if (name.rfind("valid_", 0) == 0) {
      REQUIRE(decoded == 1);
    } else if (name == "flip_record.delta") {
      // Refused as it is; with its checksum made right, a flipped byte of
      // a record's key is a delta that decodes.
      REQUIRE(decoded == 1);
    } else {
      REQUIRE(decoded == 0);
    }
    ++files;
  }
  REQUIRE(files >= 5);
}

TEST_CASE("mutated deltas are refused or merged right", "[arena][fuzz]") {
  const char* dir = std::getenv("DELTA_CORPUS");
  REQUIRE(dir != nullptr);
  const std::string base =
      testing::ReadAll(std::string(dir) + "/valid_mixed.delta");
  testing::Rng rng(5);
  int merged = 0;
  for (int i = 0; i < 300; ++i) {
    std::string bytes = base;
    const int edits = 1 + static_cast<int>(rng.Below(3));
    for (int e = 0; e < edits; ++e) {
      bytes[rng.Below(bytes.size())] = static_cast<char>(rng.Next());
    }
    merged += Run(bytes);
  }
  // Most edits break a record's structure; some only change key or value
  // bytes, and those merge (and are checked) under the fixed checksum.
  CHECK(merged > 0);
  CHECK(merged < 300);
}

}  // namespace
}  // namespace flatbench::arena
