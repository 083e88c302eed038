// The builder keeps its first error, leaves no file behind on failure,
// never leaves a file that opens as valid before Finish, and holds no more
// than one shard's index and filter hashes in memory.
//
// This executable replaces the global operator new to track live heap bytes
// (malloc_usable_size), so the memory test sees every C++ allocation.

#include "arena/builder.h"

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>
#include <string>

#include "arena/reader.h"
#include "test/arena/test_util.h"

namespace {

std::atomic<int64_t> g_live_bytes{0};
std::atomic<int64_t> g_peak_bytes{0};

void* Allocate(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  const int64_t live =
      g_live_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p))) +
      static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak_bytes.load();
  while (live > peak && !g_peak_bytes.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void Free(void* p) {
  if (p == nullptr) return;
  g_live_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)));
  std::free(p);
}

}  // namespace

void* operator new(std::size_t n) { return Allocate(n); }
void* operator new[](std::size_t n) { return Allocate(n); }
// The nothrow forms too (Catch2 uses them): every form pairs with Free(),
// or a sanitizer sees new and free() mismatched.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return Allocate(n);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void operator delete(void* p, const std::nothrow_t&) noexcept { Free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Free(p); }
void operator delete(void* p) noexcept { Free(p); }
void operator delete[](void* p) noexcept { Free(p); }
void operator delete(void* p, std::size_t) noexcept { Free(p); }
void operator delete[](void* p, std::size_t) noexcept { Free(p); }

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

// builder.h: "Memory is bounded by the shards in flight: with one job, one
// shard's image (its bytes plus its index and filter hashes)". The index is
// 8 bytes per block (16 more when compressed), the hashes 8 bytes per key.
// Spread over all 256 shards, the whole file's hashes would take 256 times
// one shard's; the peak must stay near one shard's.
TEST_CASE("builder memory stays within one shard's image, index and hashes",
          "[arena][builder]") {
  const bool compress = GENERATE(false, true);
  CAPTURE(compress);
  constexpr int kPerShard = 2000;
  testing::TempDir dir;
  BuilderOptions o;
  o.compress = compress;
  auto b = Builder::Create(dir.File("t.arena"), o);
  REQUIRE(b.ok());
  const int64_t base = g_live_bytes.load();
  g_peak_bytes.store(base);
  testing::Rng rng(3);
  std::string key(20, '\0'), value;
  for (int shard = 0; shard < 256; ++shard) {
    for (int i = 0; i < kPerShard; ++i) {
      key[0] = static_cast<char>(shard);
      key[1] = static_cast<char>(i >> 8);
      key[2] = static_cast<char>(i & 0xff);
      value = rng.Bytes(8 + rng.Below(24));
      Status st = b.value()->Add(key, value);
      if (!st.ok()) FAIL(st.message());
    }
  }
  REQUIRE(b.value()->Finish().ok());
  const int64_t growth = g_peak_bytes.load() - base;
  const BuildStats& stats = b.value()->stats();
  REQUIRE(stats.key_count == 256u * kPerShard);
  const int64_t blocks_per_shard =
      static_cast<int64_t>(stats.block_count / 256 + 1);
  // The stated bound for one shard, twice over for vector growth, plus the
  // block buffers (a data block, its compressed copy, and the block being
  // assembled) of 4 KiB each. A shard's image is its share of the file.
  const int64_t one_shard = 8 * kPerShard +
                            (compress ? 24 : 8) * blocks_per_shard +
                            static_cast<int64_t>(stats.file_bytes / 256);
  const int64_t bound = 2 * one_shard + 3 * 4096 * 2;
  const int64_t whole_file = 8 * static_cast<int64_t>(stats.key_count);
  CAPTURE(growth, one_shard, bound, whole_file);
  CHECK(growth <= bound);
  CHECK(bound < whole_file / 16);  // The bound can tell the two apart.
}

}  // namespace
}  // namespace flatbench::arena
