// The cache read path through the Reader (the block cache on its own is
// block_cache_test.cc's), and when each read path checks a block's
// checksum (reader.h).

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arena/block_cache.h"
#include "arena/reader.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

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
  testing::MemFile file(testing::ReadAll(path));
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
  file.Put(
      off + stored_len - 1,
      std::string(1, static_cast<char>(bytes[off + stored_len - 1] ^ 0x5a)));

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

// Two files of one model, plain and compressed, and cache path readers of
// them with checksums on.
struct LoadFiles {
  LoadFiles() {
    testing::Rng rng(12);
    for (int i = 0; i < 4000; ++i) model[rng.Bytes(20)] = rng.Bytes(60);
    const BuildStats stats = testing::BuildFile(path, model, BuilderOptions{});
    REQUIRE(stats.block_count > 50);
    BuilderOptions zstd;
    zstd.compress = true;
    testing::BuildFile(packed, model, zstd);
  }
  std::unique_ptr<Reader> Open(const std::string& file, bool direct) const {
    ReaderOptions ro;
    ro.verify_checksums = true;
    ro.read_path = ReadPath::kCache;
    ro.direct_cache_loads = direct;
    auto r = Reader::Open(file, ro);
    INFO(r.status().message());
    REQUIRE(r.ok());
    return std::move(r).value();
  }
  // `r` answers every key from its own loads.
  void ReadAll(const Reader& r, ReadBuffer* buffer) const {
    bool found = false;
    std::string_view value;
    for (const auto& [k, v] : model) {
      REQUIRE(r.Get(k, &found, &value, buffer).ok());
      REQUIRE(found);
      REQUIRE(value == v);
    }
    REQUIRE(r.cache()->loads() == r.cache()->slots());
  }

  testing::Model model;
  testing::TempDir dir;
  const std::string path = dir.File("d.arena");
  const std::string packed = dir.File("z.arena");
};

// The cache path loads a block that is not in the page cache with O_DIRECT
// into its frame where it can, and with buffered pread where it cannot
// (reader.h, ReaderOptions::direct_cache_loads); either way every load is
// checked before the block is cached.
TEST_CASE("cache loads go direct where they can", "[arena][cache]") {
  const LoadFiles f;
  const bool dropped = DropFromPageCache(f.path);
  {
    auto direct = f.Open(f.path, true);
    // A file system may refuse O_DIRECT (an older tmpfs): loads are then
    // buffered, and the reader says why.
    const std::string how = direct->cache_loads();
    INFO(how);
    REQUIRE((how == "O_DIRECT" ||
             how.find("O_DIRECT refused") != std::string::npos));
    ReadBuffer buffer;
    f.ReadAll(*direct, &buffer);
    if (how == "O_DIRECT" && dropped) {
      REQUIRE(buffer.direct_reads() > 0);
    }
    buffer.Release();
  }
  {
    auto buffered = f.Open(f.path, false);
    REQUIRE(buffered->cache_loads() == "O_DIRECT loads not asked for");
    ReadBuffer buffer;
    f.ReadAll(*buffered, &buffer);
    REQUIRE(buffer.direct_reads() == 0);
    buffer.Release();
  }
  {
    // Pages the page cache holds are copied from it, not read again.
    const std::string all = testing::ReadAll(f.path);
    REQUIRE(all.size() > 0);
    auto direct = f.Open(f.path, true);
    ReadBuffer buffer;
    f.ReadAll(*direct, &buffer);
    REQUIRE(buffer.direct_reads() == 0);
    buffer.Release();
  }
  {
    auto z = f.Open(f.packed, true);
    REQUIRE(z->cache_loads() == "compressed blocks are not page-aligned");
    ReadBuffer buffer;
    f.ReadAll(*z, &buffer);
    REQUIRE(buffer.direct_reads() == 0);
    buffer.Release();
  }
  {
    const int fd = ::open(f.path.c_str(), O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    ReaderOptions ro;
    ro.verify_checksums = true;
    ro.read_path = ReadPath::kCache;
    auto r = Reader::OpenFd(fd, "d", ro);
    ::close(fd);
    REQUIRE(r.ok());
    REQUIRE_THAT(r.value()->cache_loads(), Catch::Contains("descriptor"));
    ReadBuffer buffer;
    f.ReadAll(*r.value(), &buffer);
    REQUIRE(buffer.direct_reads() == 0);
    buffer.Release();
  }
}

// On a cold file a thread stops asking the page cache about each load
// after MissStreak::kStreak missing answers, asks one load in kRecheck,
// and asks every load again once the file is cached; answers are the same
// either way.
TEST_CASE("cold loads ask the page cache only while its answers vary",
          "[arena][cache]") {
  const LoadFiles f;
  const bool dropped = DropFromPageCache(f.path);
  auto r = f.Open(f.path, true);
  if (!dropped || r->cache_loads() != "O_DIRECT") {
    // tmpfs keeps its pages, and may refuse O_DIRECT: no cold load here.
    WARN("no cold O_DIRECT loads on this file system: " << r->cache_loads());
    return;
  }
  ReadBuffer buffer;
  f.ReadAll(*r, &buffer);  // every block loaded once, cold
  const uint64_t loads = r->cache()->loads();
  REQUIRE(loads > MissStreak::kStreak + 2 * MissStreak::kRecheck);
  const uint64_t expect_asked =
      MissStreak::kStreak +
      (loads - MissStreak::kStreak) / MissStreak::kRecheck;
  INFO("loads " << loads << ", asked " << buffer.pages()->asked());
  // Reads of a block another key already loaded are cache hits, not
  // loads, and ask nothing; the page cache may hold a block read twice
  // meanwhile (a buffered fallback), which restarts the questions.
  REQUIRE(buffer.pages()->asked() >= expect_asked);
  REQUIRE(buffer.pages()->asked() < loads / 2);
  REQUIRE(buffer.direct_reads() > loads / 2);
  buffer.Release();

  // The file read into the page cache: after at most kRecheck loads taken
  // as missing, every load asks and is copied from the page cache.
  REQUIRE(testing::ReadAll(f.path).size() > 0);
  auto warm = f.Open(f.path, true);
  MissStreak* pages = buffer.pages();
  const uint64_t asked_before = pages->asked();
  const uint64_t direct_before = buffer.direct_reads();
  f.ReadAll(*warm, &buffer);
  REQUIRE(buffer.direct_reads() - direct_before <= MissStreak::kRecheck);
  REQUIRE(pages->asked() - asked_before >=
          warm->cache()->loads() - MissStreak::kRecheck);
  buffer.Release();
}

// A block changed on disk: a fresh reader reports it on every load,
// direct or buffered, and never caches it.
TEST_CASE("a block changed on disk fails every cache load, and is not cached",
          "[arena][cache][corruption]") {
  const LoadFiles f;
  // Change a value byte of the first key's block.
  const std::string& key = f.model.begin()->first;
  auto probe = Reader::Open(f.path);
  REQUIRE(probe.ok());
  const uint64_t off =
      probe.value()->BlockOffset(static_cast<unsigned char>(key[0]), 0);
  std::string bytes = testing::ReadAll(f.path);
  const uint32_t stored_len = LoadU16(bytes.data() + off + 12);
  bytes[off + stored_len - 1] =
      static_cast<char>(bytes[off + stored_len - 1] ^ 0x5a);
  testing::WriteAll(f.path, bytes);
  probe.value().reset();
  for (const bool direct : {true, false}) {
    CAPTURE(direct);
    DropFromPageCache(f.path);
    auto r = f.Open(f.path, direct);
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
