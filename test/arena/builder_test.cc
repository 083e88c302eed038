// The builder keeps its first error, leaves no file behind on failure, and
// never leaves a file that opens as valid before Finish.

#include "arena/builder.h"

#include <catch2/catch.hpp>
#include <string>

#include "arena/reader.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

std::string Key(char first, char fill) {
  std::string k(20, fill);
  k[0] = first;
  return k;
}

TEST_CASE("builder keeps the first error and removes its file",
          "[arena][builder]") {
  testing::TempDir dir;
  const std::string path = dir.File("t.arena");
  auto created = Builder::Create(path, BuilderOptions{});
  REQUIRE(created.ok());
  Builder& b = *created.value();
  REQUIRE(b.Add(Key(1, 5), "v").ok());
  REQUIRE(testing::Exists(path + ".tmp"));

  std::string expected;
  SECTION("unsorted") {
    expected = "key not ascending";
    REQUIRE(b.Add(Key(1, 4), "v").message() == expected);
  }
  SECTION("duplicate") {
    expected = "duplicate key";
    REQUIRE(b.Add(Key(1, 5), "v").message() == expected);
  }
  SECTION("wrong width") {
    expected = "key width 3, expected 20";
    REQUIRE(b.Add("abc", "v").message() == expected);
  }
  SECTION("value too large") {
    expected = "value of 4059 bytes exceeds maximum 4058";
    REQUIRE(b.Add(Key(2, 0), std::string(4059, 'x')).message() == expected);
  }
  REQUIRE(b.status().code() == Code::kCorruption);
  // Later calls, even valid ones, return the first error.
  REQUIRE(b.Add(Key(9, 9), "v").message() == expected);
  REQUIRE(b.Finish().message() == expected);
  REQUIRE_FALSE(testing::Exists(path));
  REQUIRE_FALSE(testing::Exists(path + ".tmp"));
}

TEST_CASE("an unfinished build leaves nothing that opens", "[arena][builder]") {
  testing::TempDir dir;
  const std::string path = dir.File("t.arena");
  {
    auto b = Builder::Create(path, BuilderOptions{});
    REQUIRE(b.ok());
    for (int i = 0; i < 2000; ++i) {
      std::string k = Key(static_cast<char>(i / 8), 0);
      k[1] = static_cast<char>(i % 8);
      REQUIRE(b.value()->Add(k, std::string(100, 'v')).ok());
    }
    // Mid-build the temporary file exists but is not a valid arena.
    REQUIRE_FALSE(testing::Exists(path));
    auto r = Reader::Open(path + ".tmp");
    REQUIRE_FALSE(r.ok());
  }
  REQUIRE_FALSE(testing::Exists(path));
  REQUIRE_FALSE(testing::Exists(path + ".tmp"));
}

TEST_CASE("builder accepts the maximum value and reports stats",
          "[arena][builder]") {
  testing::TempDir dir;
  const std::string path = dir.File("t.arena");
  auto b = Builder::Create(path, BuilderOptions{});
  REQUIRE(b.ok());
  REQUIRE(b.value()->Add(Key(1, 1), std::string(MaxValueSize(20), 'm')).ok());
  REQUIRE(b.value()->Add(Key(1, 2), "").ok());
  REQUIRE(b.value()->Finish().ok());
  REQUIRE(b.value()->Finish().ok());  // idempotent
  const BuildStats& s = b.value()->stats();
  REQUIRE(s.key_count == 2);
  REQUIRE(s.value_bytes == MaxValueSize(20));
  REQUIRE(s.block_count == 2);
  REQUIRE(s.file_bytes == std::filesystem::file_size(path));
  REQUIRE_FALSE(testing::Exists(path + ".tmp"));
  auto r = Reader::Open(path);
  REQUIRE(r.ok());
  REQUIRE(r.value()->info().build_unix_seconds > 0);
}

TEST_CASE("builder rejects bad options", "[arena][builder]") {
  testing::TempDir dir;
  BuilderOptions o;
  o.key_width = 0;
  REQUIRE(Builder::Create(dir.File("a"), o).status().code() == Code::kUsage);
  o.key_width = 256;
  REQUIRE(Builder::Create(dir.File("a"), o).status().code() == Code::kUsage);
  o.key_width = 20;
  o.bloom_bits_per_key = 33;
  REQUIRE(Builder::Create(dir.File("a"), o).status().code() == Code::kUsage);
  REQUIRE(Builder::Create(dir.File("no/such/dir/a"), BuilderOptions{})
              .status()
              .code() == Code::kIOError);
}

}  // namespace
}  // namespace flatbench::arena
