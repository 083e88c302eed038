// The cache read path (block_cache.h) and when each read path checks a
// block's checksum (reader.h).

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "arena/block_cache.h"
#include "arena/reader.h"
#include "test/arena/test_util.h"

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

TEST_CASE("a cache smaller than the file answers every key, evicting",
          "[arena][cache]") {
  const bool compress = GENERATE(false, true);
  CAPTURE(compress);
  testing::Rng rng(31);
  testing::Model model;
  for (int i = 0; i < 20000; ++i) model[rng.Bytes(20)] = rng.Bytes(90);
  testing::TempDir dir;
  const std::string file = dir.File("c.arena");
  BuilderOptions options;
  options.compress = compress;
  const BuildStats stats = testing::BuildFile(file, model, options);
  REQUIRE(stats.block_count > 300);
  ReaderOptions ro;
  ro.read_path = ReadPath::kCache;
  ro.verify_checksums = true;
  ro.cache_bytes = 0;  // 64 frames
  auto opened = Reader::Open(file, ro);
  INFO(opened.status().message());
  REQUIRE(opened.ok());
  const Reader& r = *opened.value();
  REQUIRE(r.info().read_path == ReadPath::kCache);
  REQUIRE(r.NeedsBuffer());
  ReadBuffer buffer;
  bool found = false;
  std::string_view value;
  for (int round = 0; round < 2; ++round) {
    for (const auto& [k, v] : model) {
      REQUIRE(r.Get(k, &found, &value, &buffer).ok());
      REQUIRE(found);
      REQUIRE(value == v);
      // The value lives in the buffer (a decompressed block) or in the
      // frame the buffer pins, which later loads may not reuse.
      const BlockCache::Pin* pin = buffer.pin();
      const bool in_frame = pin->held() && value.data() >= pin->data() &&
                            value.data() < pin->data() + kBlockSize;
      const bool in_buffer = value.data() >= buffer.data() &&
                             value.data() < buffer.data() + kBlockPayload;
      REQUIRE((in_frame || in_buffer));
      if (!compress) REQUIRE(in_frame);
    }
    // A pinned value survives a sweep that evicts every other frame.
    const auto& [k0, v0] = *model.begin();
    REQUIRE(r.Get(k0, &found, &value, &buffer).ok());
    const uint64_t evicted = r.cache()->evictions();
    ReadBuffer other;
    std::string_view v_other;
    for (const auto& [k, v] : model) {
      REQUIRE(r.Get(k, &found, &v_other, &other).ok());
    }
    REQUIRE(r.cache()->evictions() >= evicted + 64);
    REQUIRE(value == v0);
    for (int i = 0; i < 2000; ++i) {
      const std::string k = rng.Bytes(20);
      REQUIRE(r.Get(k, &found, &value, &buffer).ok());
      REQUIRE(found == (model.count(k) == 1));
    }
  }
  REQUIRE(r.cache()->slots() == 64);
  REQUIRE(r.cache()->evictions() > 0);

  // A cache at least as large as the file loads each block once.
  ro.cache_bytes = uint64_t{1} << 30;
  auto big = Reader::Open(file, ro);
  REQUIRE(big.ok());
  REQUIRE(big.value()->cache()->slots() == stats.block_count);
  // Declared after `big`, so it goes first even when a check fails: a
  // buffer must not outlive the reader whose frame it pins (reader.h).
  ReadBuffer big_buffer;
  for (int round = 0; round < 2; ++round) {
    for (const auto& [k, v] : model) {
      REQUIRE(big.value()->Get(k, &found, &value, &big_buffer).ok());
      REQUIRE(value == v);
    }
  }
  REQUIRE(big.value()->cache()->loads() == stats.block_count);
  REQUIRE(big.value()->cache()->evictions() == 0);
  REQUIRE(big_buffer.pin()->held());
  big_buffer.Release();
  REQUIRE_FALSE(big_buffer.pin()->held());
}

// A file in memory that the test can change under an open reader; the map
// is shared with it.
class MemFile {
 public:
  explicit MemFile(const std::string& bytes)
      : fd_(::memfd_create("arena", MFD_CLOEXEC)) {
    REQUIRE(fd_ >= 0);
    REQUIRE(::pwrite(fd_, bytes.data(), bytes.size(), 0) ==
            static_cast<ssize_t>(bytes.size()));
  }
  ~MemFile() { ::close(fd_); }
  int fd() const { return fd_; }
  void Put(uint64_t off, char c) { REQUIRE(::pwrite(fd_, &c, 1, off) == 1); }

 private:
  int fd_;
};

// What each path promises about a block that changes after it was checked
// (reader.h; FORMAT.md, "Checksums"): the mmap path checks a block once per
// open, so a later change is read unchecked (the documented residual risk);
// the cache path keeps serving the copy it checked; every-read checking and
// a fresh open both catch the change.
TEST_CASE("each read path checks a block when it says it does",
          "[arena][cache][corruption]") {
  testing::Rng rng(8);
  testing::Model model;
  for (int i = 0; i < 3000; ++i) model[rng.Bytes(20)] = rng.Bytes(40);
  testing::TempDir dir;
  const std::string path = dir.File("v.arena");
  testing::BuildFile(path, model, BuilderOptions{});
  MemFile file(testing::ReadAll(path));
  auto open = [&](ReadPath read_path, bool every_read) {
    ReaderOptions ro;
    ro.verify_checksums = true;
    ro.verify_every_read = every_read;
    ro.read_path = read_path;
    auto r = Reader::OpenFd(file.fd(), "v", ro);
    REQUIRE(r.ok());
    return std::move(r).value();
  };
  auto once = open(ReadPath::kMmap, false);
  auto every = open(ReadPath::kMmap, true);
  auto cached = open(ReadPath::kCache, false);
  const auto& [key, want] = *model.begin();
  ReadBuffer buffer;
  bool found = false;
  std::string_view value;
  for (const Reader* r : {once.get(), every.get(), cached.get()}) {
    REQUIRE(r->Get(key, &found, &value, &buffer).ok());
    REQUIRE(value == want);
  }
  // Change the last byte of the key's block's stored bytes: a value byte.
  const int shard = static_cast<unsigned char>(key[0]);
  const uint64_t off = once->BlockOffset(shard, 0);
  const std::string bytes = testing::ReadAll(path);
  const uint32_t stored_len = LoadU16(bytes.data() + off + 12);
  file.Put(off + stored_len - 1,
           static_cast<char>(bytes[off + stored_len - 1] ^ 0x5a));

  REQUIRE(once->Get(key, &found, &value, &buffer).ok());  // not checked again
  Status st = every->Get(key, &found, &value, &buffer);
  REQUIRE(st.code() == Code::kCorruption);
  REQUIRE_THAT(st.message(), Catch::Contains("block checksum mismatch"));
  REQUIRE(cached->Get(key, &found, &value, &buffer).ok());
  REQUIRE(value == want);  // the checked copy
  auto fresh = open(ReadPath::kMmap, false);
  st = fresh->Get(key, &found, &value, &buffer);
  REQUIRE(st.code() == Code::kCorruption);
  // A failed check is not remembered: every read reports it again.
  st = fresh->Get(key, &found, &value, &buffer);
  REQUIRE(st.code() == Code::kCorruption);
  auto fresh_cache = open(ReadPath::kCache, false);
  for (int i = 0; i < 2; ++i) {
    st = fresh_cache->Get(key, &found, &value, &buffer);
    REQUIRE(st.code() == Code::kCorruption);
  }
  REQUIRE(fresh_cache->cache()->loads() == 0);
}

// Writes the file's pages back and drops them from the page cache, so the
// next read of them goes to the device. False where the file system keeps
// them (tmpfs): the caller then cannot expect a direct read.
bool DropFromPageCache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::fdatasync(fd) == 0);
  REQUIRE(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  void* m =
      ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
  REQUIRE(m != MAP_FAILED);
  std::vector<unsigned char> pages((static_cast<size_t>(size) + 4095) / 4096);
  REQUIRE(::mincore(m, static_cast<size_t>(size), pages.data()) == 0);
  ::munmap(m, static_cast<size_t>(size));
  ::close(fd);
  for (unsigned char p : pages) {
    if ((p & 1) != 0) return false;
  }
  return true;
}

// The cache path loads a block that is not in the page cache with O_DIRECT
// into its frame where it can, and with buffered pread where it cannot
// (reader.h, ReaderOptions::direct_cache_loads); either way every load is
// checked before the block is cached, and a block changed on disk is
// reported, never cached.
TEST_CASE("cache loads go direct where they can and are checked either way",
          "[arena][cache][corruption]") {
  testing::Rng rng(12);
  testing::Model model;
  for (int i = 0; i < 4000; ++i) model[rng.Bytes(20)] = rng.Bytes(60);
  testing::TempDir dir;
  const std::string path = dir.File("d.arena");
  const std::string packed = dir.File("z.arena");
  const BuildStats stats = testing::BuildFile(path, model, BuilderOptions{});
  REQUIRE(stats.block_count > 50);
  BuilderOptions zstd;
  zstd.compress = true;
  testing::BuildFile(packed, model, zstd);
  auto open = [&](const std::string& file, bool direct) {
    ReaderOptions ro;
    ro.verify_checksums = true;
    ro.read_path = ReadPath::kCache;
    ro.direct_cache_loads = direct;
    auto r = Reader::Open(file, ro);
    INFO(r.status().message());
    REQUIRE(r.ok());
    return std::move(r).value();
  };
  // Each reader answers every key from its own loads.
  auto read_all = [&](const Reader& r, ReadBuffer* buffer) {
    bool found = false;
    std::string_view value;
    for (const auto& [k, v] : model) {
      REQUIRE(r.Get(k, &found, &value, buffer).ok());
      REQUIRE(found);
      REQUIRE(value == v);
    }
    REQUIRE(r.cache()->loads() == r.cache()->slots());
  };

  const bool dropped = DropFromPageCache(path);
  {
    auto direct = open(path, true);
    // A file system may refuse O_DIRECT (an older tmpfs): loads are then
    // buffered, and the reader says why.
    const std::string how = direct->cache_loads();
    INFO(how);
    REQUIRE((how == "O_DIRECT" ||
             how.find("O_DIRECT refused") != std::string::npos));
    ReadBuffer buffer;
    read_all(*direct, &buffer);
    if (how == "O_DIRECT" && dropped) {
      REQUIRE(buffer.direct_reads() > 0);
    }
    buffer.Release();
  }
  {
    auto buffered = open(path, false);
    REQUIRE(buffered->cache_loads() == "O_DIRECT loads not asked for");
    ReadBuffer buffer;
    read_all(*buffered, &buffer);
    REQUIRE(buffer.direct_reads() == 0);
    buffer.Release();
  }
  {
    // Pages the page cache holds are copied from it, not read again.
    const std::string all = testing::ReadAll(path);
    REQUIRE(all.size() > 0);
    auto direct = open(path, true);
    ReadBuffer buffer;
    read_all(*direct, &buffer);
    REQUIRE(buffer.direct_reads() == 0);
    buffer.Release();
  }
  {
    auto z = open(packed, true);
    REQUIRE(z->cache_loads() == "compressed blocks are not page-aligned");
    ReadBuffer buffer;
    read_all(*z, &buffer);
    REQUIRE(buffer.direct_reads() == 0);
    buffer.Release();
  }
  {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    ReaderOptions ro;
    ro.verify_checksums = true;
    ro.read_path = ReadPath::kCache;
    auto r = Reader::OpenFd(fd, "d", ro);
    ::close(fd);
    REQUIRE(r.ok());
    REQUIRE_THAT(r.value()->cache_loads(), Catch::Contains("descriptor"));
    ReadBuffer buffer;
    read_all(*r.value(), &buffer);
    REQUIRE(buffer.direct_reads() == 0);
    buffer.Release();
  }

  // Change a value byte of the first key's block on disk: a fresh reader
  // reports it on every read, direct or buffered, and never caches it.
  const auto& [key, want] = *model.begin();
  auto probe = Reader::Open(path);
  REQUIRE(probe.ok());
  const uint64_t off =
      probe.value()->BlockOffset(static_cast<unsigned char>(key[0]), 0);
  std::string bytes = testing::ReadAll(path);
  const uint32_t stored_len = LoadU16(bytes.data() + off + 12);
  bytes[off + stored_len - 1] =
      static_cast<char>(bytes[off + stored_len - 1] ^ 0x5a);
  testing::WriteAll(path, bytes);
  probe.value().reset();
  for (const bool direct : {true, false}) {
    CAPTURE(direct);
    DropFromPageCache(path);
    auto r = open(path, direct);
    ReadBuffer buffer;
    bool found = false;
    std::string_view value;
    for (int i = 0; i < 2; ++i) {
      Status st = r->Get(key, &found, &value, &buffer);
      REQUIRE(st.code() == Code::kCorruption);
      REQUIRE_THAT(st.message(), Catch::Contains("block checksum mismatch"));
    }
    REQUIRE(r->cache()->loads() == 0);
  }
}

}  // namespace
}  // namespace flatbench::arena
