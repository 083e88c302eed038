// The block cache of the cache read path (block_cache.h) on its own: at
// most its frames, CLOCK eviction of unpinned ones, pins that hold a frame,
// loaders turned away rather than blocked, and frames reused across caches.

#include "arena/block_cache.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "arena/format.h"

namespace flatbench::arena {
namespace {

// Fills a claimed frame with a pattern naming its block.
void Fill(char* frame, uint32_t block) {
  for (size_t i = 0; i < kBlockSize; i += 4) std::memcpy(frame + i, &block, 4);
}

bool Holds(const char* frame, uint32_t block) {
  for (size_t i = 0; i < kBlockSize; i += 4) {
    uint32_t v;
    std::memcpy(&v, frame + i, 4);
    if (v != block) return false;
  }
  return true;
}

TEST_CASE("the block cache holds at most its frames and evicts unpinned ones",
          "[arena][cache]") {
  auto created = BlockCache::Create(1000, 64 * kBlockSize);
  REQUIRE(created.ok());
  BlockCache& cache = *created.value();
  REQUIRE(cache.slots() == 64);
  for (uint32_t b = 0; b < 1000; ++b) {
    BlockCache::Pin pin;
    REQUIRE_FALSE(cache.Lookup(b, &pin));
    BlockCache::Load load;
    REQUIRE(cache.BeginLoad(b, &load));
    // A second loader of the same block is turned away, not blocked.
    BlockCache::Load second;
    REQUIRE_FALSE(cache.BeginLoad(b, &second));
    Fill(load.data(), b);
    load.Publish(&pin);
    REQUIRE(pin.held());
    REQUIRE(Holds(pin.data(), b));
  }
  REQUIRE(cache.loads() == 1000);
  REQUIRE(cache.evictions() == 1000 - 64);
  // Exactly 64 blocks are cached, and each cached frame holds its block.
  uint32_t cached = 0;
  for (uint32_t b = 0; b < 1000; ++b) {
    BlockCache::Pin pin;
    if (cache.Lookup(b, &pin)) {
      ++cached;
      REQUIRE(Holds(pin.data(), b));
    }
  }
  REQUIRE(cached == 64);
}

// A cache opened after another reuses the closed one's frame memory (no
// new zero-filled pages), and none of the old blocks shows through it.
TEST_CASE("a new cache reuses a closed cache's frames, empty",
          "[arena][cache]") {
  std::vector<const char*> first_frames;
  {
    auto a = BlockCache::Create(100, 77 * kBlockSize);
    REQUIRE(a.ok());
    for (uint32_t b = 0; b < 77; ++b) {
      BlockCache::Load load;
      REQUIRE(a.value()->BeginLoad(b, &load));
      Fill(load.data(), b);
      first_frames.push_back(load.data());
      BlockCache::Pin pin;
      load.Publish(&pin);
    }
  }
  auto b = BlockCache::Create(100, 77 * kBlockSize);
  REQUIRE(b.ok());
  BlockCache& cache = *b.value();
  CHECK(cache.reused_frames());
  for (uint32_t blk = 0; blk < 100; ++blk) {
    BlockCache::Pin pin;
    REQUIRE_FALSE(cache.Lookup(blk, &pin));
  }
  // Its frames are the first cache's, loaded afresh.
  for (uint32_t blk = 0; blk < 77; ++blk) {
    BlockCache::Load load;
    REQUIRE(cache.BeginLoad(blk + 7, &load));
    CHECK(std::find(first_frames.begin(), first_frames.end(), load.data()) !=
          first_frames.end());
    Fill(load.data(), blk + 7);
    BlockCache::Pin pin;
    load.Publish(&pin);
    REQUIRE(Holds(pin.data(), blk + 7));
  }
  // A cache opened while that one is open never gets its frames.
  auto c = BlockCache::Create(100, 77 * kBlockSize);
  REQUIRE(c.ok());
  BlockCache::Load load;
  REQUIRE(c.value()->BeginLoad(0, &load));
  CHECK(std::find(first_frames.begin(), first_frames.end(), load.data()) ==
        first_frames.end());
}

// A Lookup of the block a pin already holds keeps the pin as it is: same
// frame, same bytes, and still one pin, so one Release frees the frame.
TEST_CASE("a pin reused for its own block holds it once", "[arena][cache]") {
  auto created = BlockCache::Create(300, 0);  // 64 frames
  REQUIRE(created.ok());
  BlockCache& cache = *created.value();
  BlockCache::Pin held;
  {
    BlockCache::Load load;
    REQUIRE(cache.BeginLoad(5, &load));
    Fill(load.data(), 5);
    load.Publish(&held);
  }
  const char* frame = held.data();
  for (int i = 0; i < 3; ++i) {
    REQUIRE(cache.Lookup(5, &held));
    REQUIRE(held.data() == frame);
    REQUIRE(Holds(held.data(), 5));
  }
  // Held: loading every other block, several times round, never takes it.
  auto load_others = [&] {
    for (uint32_t b = 6; b < 300; ++b) {
      BlockCache::Pin pin;
      if (cache.Lookup(b, &pin)) continue;
      BlockCache::Load load;
      REQUIRE(cache.BeginLoad(b, &load));
      Fill(load.data(), b);
      load.Publish(&pin);
    }
  };
  load_others();
  load_others();
  REQUIRE(Holds(frame, 5));
  BlockCache::Pin again;
  REQUIRE(cache.Lookup(5, &again));
  REQUIRE(again.data() == frame);
  again.Release();
  // A pin moved to another block lets its old frame go.
  REQUIRE(cache.Lookup(299, &held));
  REQUIRE(Holds(held.data(), 299));
  held.Release();
  // Released once, the frame is evictable again: had the reuse pinned it a
  // second time, block 5 would stay cached through any number of loads.
  load_others();
  load_others();
  BlockCache::Pin gone;
  REQUIRE_FALSE(cache.Lookup(5, &gone));
}

// FrameHint (the reader's prefetch hint) names the frame a Lookup would pin,
// and nothing for a block that is not cached or is being loaded.
TEST_CASE("a frame hint names the cached block's frame, or none",
          "[arena][cache]") {
  auto created = BlockCache::Create(300, 0);  // 64 frames
  REQUIRE(created.ok());
  BlockCache& cache = *created.value();
  for (uint32_t b = 0; b < 300; ++b) {
    REQUIRE(cache.FrameHint(b) == nullptr);
    BlockCache::Load load;
    REQUIRE(cache.BeginLoad(b, &load));
    REQUIRE(cache.FrameHint(b) == nullptr);  // loading: not readable yet
    Fill(load.data(), b);
    BlockCache::Pin pin;
    load.Publish(&pin);
    REQUIRE(cache.FrameHint(b) == pin.data());
  }
  uint32_t cached = 0;
  for (uint32_t b = 0; b < 300; ++b) {
    BlockCache::Pin pin;
    if (cache.Lookup(b, &pin)) {
      ++cached;
      REQUIRE(cache.FrameHint(b) == pin.data());
    } else {
      REQUIRE(cache.FrameHint(b) == nullptr);  // evicted
    }
  }
  REQUIRE(cached == 64);
}

TEST_CASE("a pinned frame is never reused; all pinned turns loaders away",
          "[arena][cache]") {
  auto created = BlockCache::Create(200, 0);  // the minimum: 64 frames
  REQUIRE(created.ok());
  BlockCache& cache = *created.value();
  REQUIRE(cache.slots() == 64);
  std::vector<BlockCache::Pin> pins(64);
  for (uint32_t b = 0; b < 64; ++b) {
    BlockCache::Load load;
    REQUIRE(cache.BeginLoad(b, &load));
    Fill(load.data(), b);
    load.Publish(&pins[b]);
  }
  BlockCache::Load load;
  REQUIRE_FALSE(cache.BeginLoad(100, &load));
  REQUIRE_FALSE(load.claimed());
  // The refused block is not left claimed: once a frame is free it loads.
  pins[7].Release();
  REQUIRE(cache.BeginLoad(100, &load));
  Fill(load.data(), 100);
  BlockCache::Pin p100;
  load.Publish(&p100);
  BlockCache::Pin p7;
  REQUIRE_FALSE(cache.Lookup(7, &p7));
  for (uint32_t b = 0; b < 64; ++b) {
    if (b == 7) continue;
    REQUIRE(Holds(pins[b].data(), b));
  }
  // An abandoned load frees its claim: the block can be loaded again.
  BlockCache::Pin none;
  p100.Release();
  pins[8].Release();
  {
    BlockCache::Load failed;
    REQUIRE(cache.BeginLoad(150, &failed));
    failed.Abandon();
  }
  REQUIRE_FALSE(cache.Lookup(150, &none));
  BlockCache::Load retry;
  REQUIRE(cache.BeginLoad(150, &retry));
}

}  // namespace
}  // namespace flatbench::arena
