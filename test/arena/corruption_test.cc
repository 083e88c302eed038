// Every truncation of a valid file is rejected at open; every byte flip in
// header, directory, index and filter is rejected at open; every byte flip
// in a data block is caught by Verify and by checksum-verifying reads (a
// zstd block in a file whose flags do not allow compression:
// zstd_block_test.cc).

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "arena/reader.h"
#include "arena/verify.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

using testing::MemFile;
using testing::Model;
using testing::Rng;

// A small file with keys in three shards, bloom on.
Model SmallModel(size_t width) {
  Rng rng(7);
  Model m;
  for (int shard : {0, 17, 200}) {
    for (int i = 0; i < 60; ++i) {
      std::string k = rng.Bytes(width);
      k[0] = static_cast<char>(shard);
      m[k] = rng.Bytes(rng.Below(90));
    }
  }
  return m;
}

struct Built {
  testing::TempDir dir;
  std::string bytes;
  Model model;
};

void Build(Built* b, bool compress) {
  b->model = SmallModel(20);
  BuilderOptions options;
  options.compress = compress;
  testing::BuildFile(b->dir.File("t.arena"), b->model, options);
  b->bytes = testing::ReadAll(b->dir.File("t.arena"));
}

// Truncation is caught by the header's file size whatever the blocks hold,
// so one (uncompressed) file suffices.
TEST_CASE("every truncation is rejected at open", "[arena][corruption]") {
  Built b;
  Build(&b, false);
  MemFile file("");
  for (size_t len = 0; len < b.bytes.size(); ++len) {
    auto r = Reader::OpenFd(file.fd(), "t", ReaderOptions{});
    if (r.ok()) FAIL("truncation to " << len << " bytes opened");
    // Shorter than the magic: not recognisably ours; longer: corrupt.
    REQUIRE(r.status().code() ==
            (len < kMagic.size() ? Code::kNotOurFormat : Code::kCorruption));
    file.Put(len, b.bytes.substr(len, 1));
  }
  REQUIRE(Reader::OpenFd(file.fd(), "t", ReaderOptions{}).ok());
}

// "Not ours" and "wrong version" carry distinct codes (as LMDB's
// MDB_INVALID and MDB_VERSION_MISMATCH); callers test codes, not text.
TEST_CASE("open reports not-ours and wrong version distinctly",
          "[arena][corruption]") {
  Built b;
  Build(&b, false);
  SECTION("garbage") {
    MemFile file(std::string(50000, 'x'));
    auto r = Reader::OpenFd(file.fd(), "t", ReaderOptions{});
    REQUIRE(r.status().code() == Code::kNotOurFormat);
    REQUIRE(r.status().ExitCode() == 65);
  }
  SECTION("an older or newer version") {
    // Version 1 (index not page-aligned) is no longer read; 3 is unknown.
    const uint32_t version = GENERATE(0u, 1u, 3u);
    CAPTURE(version);
    std::string bytes = b.bytes;
    StoreU32(bytes.data() + 8, version);
    StoreU64(bytes.data() + kHeaderChecksumOffset,
             Checksum(bytes.data(), kHeaderChecksumOffset, 0));
    MemFile file(bytes);
    auto r = Reader::OpenFd(file.fd(), "t", ReaderOptions{});
    REQUIRE(r.status().code() == Code::kVersionMismatch);
    REQUIRE(r.status().ExitCode() == 65);
  }
  SECTION("the current version opens") {
    REQUIRE(LoadU32(b.bytes.data() + 8) == kFormatVersion);
    MemFile file(b.bytes);
    REQUIRE(Reader::OpenFd(file.fd(), "t", ReaderOptions{}).ok());
  }
  SECTION("missing file") {
    auto r = Reader::Open(b.dir.File("nope.arena"));
    REQUIRE(r.status().code() == Code::kMissingInput);
  }
}

// Rewrites directory entry `shard` with `edit` applied, then re-seals the
// directory and header checksums, so only the structural checks can object.
template <typename Edit>
std::string EditShard(std::string bytes, size_t shard, Edit edit) {
  const uint64_t dir_off = bytes.size() - kDirectorySize;
  char* entry = bytes.data() + dir_off + shard * kShardEntrySize;
  ShardEntry e = DecodeShardEntry(entry);
  edit(&e);
  EncodeShardEntry(e, entry);
  StoreU64(bytes.data() + 72,
           Checksum(bytes.data() + dir_off, kDirectorySize, dir_off));
  StoreU64(bytes.data() + kHeaderChecksumOffset,
           Checksum(bytes.data(), kHeaderChecksumOffset, 0));
  return bytes;
}

TEST_CASE("overlapping shard regions are rejected at open",
          "[arena][corruption]") {
  Built b;
  Build(&b, false);
  const uint64_t dir_off = b.bytes.size() - kDirectorySize;
  auto entry = [&](size_t s) {
    return DecodeShardEntry(b.bytes.data() + dir_off + s * kShardEntrySize);
  };
  const ShardEntry first = entry(0);
  const ShardEntry second = entry(17);
  REQUIRE(first.block_count > 0);
  REQUIRE(second.block_count > 0);
  // Each crafted directory is otherwise in bounds, aligned and consistent.
  std::vector<std::pair<const char*, std::string>> cases;
  cases.emplace_back("shard 17's data inside shard 0's",
                     EditShard(b.bytes, 17, [&](ShardEntry* e) {
                       e->data_offset = first.data_offset;
                       e->data_bytes = first.data_bytes;
                       e->block_count = first.block_count;
                       e->key_count = first.key_count;
                     }));
  cases.emplace_back("shard 17's index is shard 0's",
                     EditShard(b.bytes, 17, [&](ShardEntry* e) {
                       e->index_offset = first.index_offset;
                       e->index_checksum = first.index_checksum;
                     }));
  cases.emplace_back("shard 0's index inside its data",
                     EditShard(b.bytes, 0, [&](ShardEntry* e) {
                       e->index_offset = e->data_offset;
                     }));
  cases.emplace_back("shard 0's filter on its index",
                     EditShard(b.bytes, 0, [&](ShardEntry* e) {
                       e->filter_offset = e->index_offset;
                     }));
  for (const auto& [what, bytes] : cases) {
    CAPTURE(what);
    MemFile file(bytes);
    for (bool lazy : {false, true}) {
      ReaderOptions ro;
      ro.lazy = lazy;
      auto r = Reader::OpenFd(file.fd(), "t", ro);
      REQUIRE(r.status().code() == Code::kCorruption);
      REQUIRE(r.status().message().find("regions overlap") !=
              std::string::npos);
    }
  }
}

// Byte ranges that must be covered by open-time checks.
std::vector<std::pair<uint64_t, uint64_t>> MetadataRanges(const Reader& r) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  ranges.emplace_back(0, kHeaderSize);
  const ArenaInfo& info = r.info();
  ranges.emplace_back(info.file_bytes - kDirectorySize, kDirectorySize);
  return ranges;
}

TEST_CASE("every metadata byte flip is detected at open",
          "[arena][corruption]") {
  const bool compress = GENERATE(false, true);
  CAPTURE(compress);
  Built b;
  Build(&b, compress);
  auto reader = Reader::Open(b.dir.File("t.arena"));
  REQUIRE(reader.ok());
  auto ranges = MetadataRanges(*reader.value());
  // Index and filter of each shard: read their offsets from the directory.
  const uint64_t dir_off = b.bytes.size() - kDirectorySize;
  for (size_t s = 0; s < kNumShards; ++s) {
    const ShardEntry e =
        DecodeShardEntry(b.bytes.data() + dir_off + s * kShardEntrySize);
    if (e.block_count == 0) continue;
    ranges.emplace_back(e.index_offset, IndexBytes(e.block_count, compress));
    ranges.emplace_back(e.filter_offset, e.filter_lines * kFilterLineBytes);
  }
  REQUIRE(ranges.size() == 2 + 2 * 3);
  MemFile file(b.bytes);
  size_t flips = 0;
  for (auto [off, len] : ranges) {
    REQUIRE(len > 0);
    for (uint64_t i = off; i < off + len; ++i) {
      const std::string orig = b.bytes.substr(i, 1);
      file.Put(i, std::string(1, static_cast<char>(orig[0] ^ 0xff)));
      auto r = Reader::OpenFd(file.fd(), "t", ReaderOptions{});
      if (r.ok()) FAIL("flip at " << i << " not detected");
      file.Put(i, orig);
      ++flips;
    }
  }
  CAPTURE(flips);
  REQUIRE(Reader::OpenFd(file.fd(), "t", ReaderOptions{}).ok());
}

// A lazy open reads no index at open, so it cannot check the index's
// checksum there; the promise (reader.h) is that a corrupt lazy index can
// misdirect a lookup but never read out of bounds (ASan would report it) or
// return another key's value, and Verify catches it.
TEST_CASE("a lazily opened corrupt index misdirects at worst, never overruns",
          "[arena][corruption]") {
  const bool compress = GENERATE(false, true);
  CAPTURE(compress);
  Built b;
  Build(&b, compress);
  const uint64_t dir_off = b.bytes.size() - kDirectorySize;
  std::vector<std::pair<uint64_t, uint64_t>> indexes;
  for (size_t s = 0; s < kNumShards; ++s) {
    const ShardEntry e =
        DecodeShardEntry(b.bytes.data() + dir_off + s * kShardEntrySize);
    if (e.block_count > 0) {
      indexes.emplace_back(e.index_offset, IndexBytes(e.block_count, compress));
    }
  }
  REQUIRE(indexes.size() == 3);
  Rng rng(11);
  std::vector<std::string> absent;
  for (int i = 0; i < 20; ++i) absent.push_back(rng.Bytes(20));
  MemFile file(b.bytes);
  ReadBuffer buffer;
  size_t corrupt_opens = 0, misdirected = 0;
  for (auto [off, len] : indexes) {
    for (uint64_t i = off; i < off + len; ++i) {
      const std::string orig = b.bytes.substr(i, 1);
      file.Put(i, std::string(1, static_cast<char>(orig[0] ^ 0xff)));
      for (ReadPath path : {ReadPath::kMmap, ReadPath::kPread}) {
        ReaderOptions ro;
        ro.lazy = true;
        ro.verify_checksums = true;
        ro.read_path = path;
        auto r = Reader::OpenFd(file.fd(), "t", ro);
        if (!r.ok()) continue;  // Rejected at open: fine too.
        ++corrupt_opens;
        for (const auto& [key, want] : b.model) {
          bool found = false;
          std::string_view value;
          Status st = r.value()->Get(key, &found, &value, &buffer);
          if (st.ok() && found && value != want) {
            FAIL("flip at " << i << ": another value for a present key");
          }
          misdirected += !st.ok() || !found;
        }
        for (const auto& key : absent) {
          bool found = false;
          std::string_view value;
          Status st = r.value()->Get(key, &found, &value, &buffer);
          if (st.ok() && found && b.model.count(key) == 0) {
            FAIL("flip at " << i << ": an absent key found");
          }
        }
        VerifyReport report;
        if (Verify(*r.value(), &report).ok()) FAIL("verify missed " << i);
      }
      file.Put(i, orig);
    }
  }
  CAPTURE(corrupt_opens, misdirected);
  // Lazy opens do not read the index, so most flipped files open, and some
  // flips do misdirect lookups: both paths of the promise were exercised.
  CHECK(corrupt_opens > 0);
  CHECK(misdirected > 0);
}

TEST_CASE("every data block byte flip is caught by verify and by reads",
          "[arena][corruption]") {
  const bool compress = GENERATE(false, true);
  CAPTURE(compress);
  Built b;
  Build(&b, compress);
  MemFile file(b.bytes);
  ReaderOptions ro;
  ro.verify_checksums = true;
  // The map is shared with the memfd, so flips written to the file are seen
  // by the open reader without reopening.
  auto opened = Reader::OpenFd(file.fd(), "t", ro);
  REQUIRE(opened.ok());
  const Reader& reader = *opened.value();
  ReaderOptions plain_options;
  auto plain = Reader::OpenFd(file.fd(), "t", plain_options);
  REQUIRE(plain.ok());
  ReaderOptions pread_options = ro;
  pread_options.read_path = ReadPath::kPread;
  auto pread = Reader::OpenFd(file.fd(), "t", pread_options);
  REQUIRE(pread.ok());
  // The cache path checks a block when it loads it and caches only what
  // passed, so each flipped read fails again rather than hitting the cache.
  ReaderOptions cache_options = ro;
  cache_options.read_path = ReadPath::kCache;
  auto cache = Reader::OpenFd(file.fd(), "t", cache_options);
  REQUIRE(cache.ok());
  ReadBuffer buffer;
  size_t flips = 0;
  for (int shard = 0; shard < static_cast<int>(kNumShards); ++shard) {
    for (uint32_t blk = 0; blk < reader.BlockCount(shard); ++blk) {
      BlockContents c;
      REQUIRE(reader.ReadBlock(shard, blk, true, &buffer, &c).ok());
      const std::string probe_key(c.key(0));
      const uint64_t off = reader.BlockOffset(shard, blk);
      const uint32_t stored_len = LoadU16(b.bytes.data() + off + 12);
      for (uint64_t i = off; i < off + stored_len; ++i) {
        const std::string orig = b.bytes.substr(i, 1);
        file.Put(i, std::string(1, static_cast<char>(orig[0] ^ 0xff)));
        VerifyReport report;
        if (Verify(reader, &report).ok()) FAIL("verify missed flip at " << i);
        bool found = false;
        std::string_view value;
        if (reader.Get(probe_key, &found, &value, &buffer).ok()) {
          FAIL("checksummed read missed flip at " << i);
        }
        if (pread.value()->Get(probe_key, &found, &value, &buffer).ok()) {
          FAIL("checksummed pread missed flip at " << i);
        }
        if (cache.value()->Get(probe_key, &found, &value, &buffer).ok()) {
          FAIL("cache read path missed flip at " << i);
        }
        // Without checksums a read may return anything, but never crash.
        (void)plain.value()->Get(probe_key, &found, &value, &buffer);
        file.Put(i, orig);
        ++flips;
      }
    }
  }
  CAPTURE(flips);
  REQUIRE(flips > 1000);
  VerifyReport report;
  REQUIRE(Verify(reader, &report).ok());
}

}  // namespace
}  // namespace flatbench::arena
