// Reader::MultiGet answers every key exactly as Get does, on every read
// path, with io_uring and with the pread loop, for keys in any order,
// repeated, absent and of the wrong width; a corrupt block fails only the
// keys it holds, each with its own error, and the others are answered.

#include "arena/batch.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "arena/reader.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

using testing::Model;
using testing::Rng;

// Keys in four shards; shard 90's keys all share their first 8 bytes, so
// its blocks start with one prefix and a lookup there searches them (Get's
// tied-prefix path, which a batch leaves to Get).
Model BatchModel() {
  Rng rng(11);
  Model m;
  for (int shard : {0, 17, 200}) {
    for (int i = 0; i < 400; ++i) {
      std::string k = rng.Bytes(20);
      k[0] = static_cast<char>(shard);
      m[k] = rng.Bytes(rng.Below(90));
    }
  }
  const std::string tied = std::string(1, '\x5a') + rng.Bytes(7);
  for (int i = 0; i < 300; ++i) m[tied + rng.Bytes(12)] = rng.Bytes(40);
  return m;
}

// Present keys, absent neighbours (last byte changed), keys of the wrong
// width, and repeats, shuffled.
std::vector<std::string> KeyPool(const Model& m, Rng* rng) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) {
    keys.push_back(k);
    if (rng->Below(4) == 0) {
      std::string miss = k;
      miss.back() = static_cast<char>(miss.back() ^ 1);
      keys.push_back(miss);
    }
    if (rng->Below(16) == 0) keys.push_back(k);  // a repeat
  }
  keys.push_back(std::string(20, '\0'));
  keys.push_back(std::string(20, '\xff'));
  keys.push_back(std::string(52, '\x11'));  // a storage-width key
  keys.push_back(std::string(3, 'k'));
  for (size_t i = keys.size(); i > 1; --i) {
    std::swap(keys[i - 1], keys[rng->Below(i)]);
  }
  return keys;
}

// Drops the file's pages from the page cache where the file system allows
// (not tmpfs), so batches read blocks rather than find them resident.
void Evict(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

// Every result of one batch of `keys` against Get with its own buffer.
void CheckBatch(const Reader& reader, const Model& model,
                const std::vector<std::string_view>& keys,
                BatchScratch* scratch) {
  std::vector<GetResult> results(keys.size());
  reader.MultiGet(keys, results, scratch);
  ReadBuffer single;
  for (size_t i = 0; i < keys.size(); ++i) {
    CAPTURE(i, keys[i].size());
    bool found = false;
    std::string_view value;
    const Status st = reader.Get(keys[i], &found, &value, &single);
    REQUIRE(results[i].status.code() == st.code());
    REQUIRE(results[i].status.message() == st.message());
    if (!st.ok()) continue;
    REQUIRE(results[i].found == found);
    if (found) {
      REQUIRE(results[i].value == value);
      REQUIRE(model.at(std::string(keys[i])) == value);
    } else {
      REQUIRE(model.count(std::string(keys[i])) == 0);
    }
  }
}

TEST_CASE("a batch answers every key as Get does, on every read path",
          "[arena][batch]") {
  const bool compress = GENERATE(false, true);
  const bool verify = GENERATE(false, true);
  const ReadPath path = GENERATE(ReadPath::kMmap, ReadPath::kPread,
                                 ReadPath::kCache, ReadPath::kDirect);
  const bool uring = GENERATE(true, false);
  CAPTURE(compress, verify, ReadPathName(path), uring);
  testing::TempDir dir;
  const Model model = BatchModel();
  BuilderOptions options;
  options.compress = compress;
  const std::string file = dir.File("t.arena");
  testing::BuildFile(file, model, options);
  ReaderOptions ro;
  ro.verify_checksums = verify;
  ro.read_path = path;
  ro.cache_bytes = 16 * kBlockSize;  // small: loads evict one another
  auto reader = Reader::Open(file, ro);
  if (!reader.ok() && path == ReadPath::kDirect) {
    WARN("O_DIRECT refused here: " << reader.status().message());
    return;
  }
  REQUIRE(reader.ok());
  Rng rng(23);
  const std::vector<std::string> pool = KeyPool(model, &rng);
  BatchScratch scratch(uring);
  size_t at = 0;
  for (size_t size : {1, 2, 7, 32, 33, 100, 300, 700}) {
    CAPTURE(size);
    Evict(file);
    std::vector<std::string_view> keys;
    for (size_t i = 0; i < size; ++i)
      keys.push_back(pool[(at + i) % pool.size()]);
    at += size;
    CheckBatch(*reader.value(), model, keys, &scratch);
  }
  BatchIoStats stats;
  scratch.io().AddTo(&stats);
  if (scratch.io().uring() && path != ReadPath::kMmap &&
      path != ReadPath::kCache) {
    // pread and direct read every block they need: with io_uring, in
    // submissions of several reads at once.
    CHECK(stats.submissions > 0);
    CHECK(stats.max_depth > 1);
  }
  if (!uring) CHECK(stats.submissions == 0);
}

TEST_CASE(
    "a batch with more blocks to read than the ring holds, and a session "
    "handed to another thread, answer every key as Get does",
    "[arena][batch]") {
  const ReadPath path =
      GENERATE(ReadPath::kMmap, ReadPath::kPread, ReadPath::kCache);
  CAPTURE(ReadPathName(path));
  testing::TempDir dir;
  // Values of 3,000 bytes: one pair a block, so 600 keys are 600 blocks,
  // more than the 256 reads a session keeps in flight.
  Rng rng(31);
  Model model;
  for (int i = 0; i < 600; ++i) model[rng.Bytes(20)] = rng.Bytes(3000);
  const std::string file = dir.File("t.arena");
  testing::BuildFile(file, model, BuilderOptions());
  ReaderOptions ro;
  ro.verify_checksums = true;
  ro.read_path = path;
  ro.cache_bytes = 1024 * kBlockSize;
  std::vector<std::string_view> keys;
  for (const auto& [k, v] : model) keys.push_back(k);
  BatchScratch scratch(true);
  BatchIoStats stats;
  {
    auto reader = Reader::Open(file, ro);
    REQUIRE(reader.ok());
    Evict(file);
    CheckBatch(*reader.value(), model, keys, &scratch);
    scratch.io().AddTo(&stats);
    scratch.Release();  // its frames, before the reader goes
  }
  if (scratch.io().uring()) {
    // Held to the ring's size, the rest submitted as completions freed it:
    // every block read, none by the fallback.
    CHECK(stats.max_depth == 256);
    CHECK(stats.reads >= keys.size());
    CHECK(stats.sync_reads == 0);
  }
  // The same scratch from another thread, with a fresh reader (whose map
  // and cache hold nothing): a single-issuer ring takes submissions only
  // from the thread that made it, so that thread gets a ring of its own,
  // and still no read falls back to pread.
  const bool uring = scratch.io().uring();
  Evict(file);
  std::thread other([&] {
    auto reader = Reader::Open(file, ro);
    REQUIRE(reader.ok());
    std::vector<std::string_view> some(keys.begin(), keys.begin() + 100);
    CheckBatch(*reader.value(), model, some, &scratch);
    scratch.Release();
  });
  other.join();
  BatchIoStats after;
  scratch.io().AddTo(&after);
  if (uring) {
    CHECK(scratch.io().uring());
    CHECK(after.submissions == stats.submissions + 1);
    CHECK(after.reads >= stats.reads + 100);
    CHECK(after.sync_reads == 0);
  }
}

// Whether the page at `offset` of `path` is in the page cache.
bool PageResident(const std::string& path, uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  const off_t size = ::lseek(fd, 0, SEEK_END);
  void* m =
      ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  REQUIRE(m != MAP_FAILED);
  unsigned char resident = 0;
  const uint64_t page = offset / kBlockSize * kBlockSize;
  REQUIRE(::mincore(static_cast<char*>(m) + page, kBlockSize, &resident) == 0);
  ::munmap(m, static_cast<size_t>(size));
  return (resident & 1) != 0;
}

// Brings the page at `offset` of `path` into the page cache (a buffered
// read of it).
void ReadPage(const std::string& path, uint64_t offset) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::string page(kBlockSize, '\0');
  REQUIRE(::pread(fd, page.data(), kBlockSize,
                  static_cast<off_t>(offset / kBlockSize * kBlockSize)) > 0);
  ::close(fd);
}

// Reads of the batch's blocks counted by its scratch so far: submitted
// together or one by one.
uint64_t BlockReads(const BatchScratch& scratch) {
  BatchIoStats stats;
  scratch.io().AddTo(&stats);
  return stats.reads + stats.sync_reads;
}

TEST_CASE(
    "after a batch that found every block resident, or every block "
    "missing, the mmap path asks only the next batch's first block",
    "[arena][batch]") {
  const bool uring = GENERATE(true, false);
  CAPTURE(uring);
  testing::TempDir dir;
  const Model model = BatchModel();
  const std::string file = dir.File("t.arena");
  testing::BuildFile(file, model, BuilderOptions());
  ReaderOptions ro;
  ro.verify_checksums = true;
  ro.read_path = ReadPath::kMmap;
  // The first key of shard 0's block 0 (the batch's first block: groups
  // are in file order), then every key of shard 200 (other blocks).
  std::vector<std::string> owned;
  uint64_t first_block = 0;
  uint64_t other_block = 0;
  uint32_t blocks = 0;
  {
    auto clean = Reader::Open(file, ro);
    REQUIRE(clean.ok());
    ReadBuffer buffer;
    BlockContents c;
    REQUIRE(clean.value()->ReadBlock(0, 0, false, &buffer, &c).ok());
    owned.emplace_back(c.key(0));
    first_block = clean.value()->BlockOffset(0, 0);
    other_block = clean.value()->BlockOffset(200, 0);
    blocks = clean.value()->BlockCount(200);
  }
  for (const auto& [k, v] : model) {
    if (static_cast<unsigned char>(k[0]) == 200) owned.push_back(k);
  }
  const std::vector<std::string_view> keys(owned.begin(), owned.end());
  Evict(file);
  if (PageResident(file, other_block)) {
    WARN("this file system keeps the file's pages (tmpfs?): not checked");
    return;
  }
  // One scratch across readers: a page a reader has faulted in stays
  // mapped (and resident) while it lives, so each batch gets a fresh
  // reader, whose map holds nothing yet, after the pages were set up.
  BatchScratch scratch(uring);
  auto batch = [&]() {
    auto reader = Reader::Open(file, ro);
    REQUIRE(reader.ok());
    std::vector<GetResult> results(keys.size());
    reader.value()->MultiGet(keys, results, &scratch);
    for (size_t i = 0; i < keys.size(); ++i) {
      CAPTURE(i);
      REQUIRE(results[i].status.ok());
      REQUIRE(results[i].found);
      REQUIRE(results[i].value == model.at(owned[i]));
    }
    return BlockReads(scratch);
  };

  // Cold: every block is read.
  const uint64_t cold = batch();
  CHECK(cold >= blocks);
  // The whole file resident: nothing is read, and the next batch may trust
  // the map.
  (void)testing::ReadAll(file);
  CHECK(batch() == cold);
  // Evicted again: the first block is asked, found absent, and every block
  // is read once more (not faulted in one at a time).
  Evict(file);
  const uint64_t second_cold = batch();
  CHECK(second_cold - cold >= blocks);
  // Resident again, then evicted but for the first block's page: the batch
  // after a resident one asks of its first block only, and reads the
  // others through the map (their page faults), answering the same.
  (void)testing::ReadAll(file);
  CHECK(batch() == second_cold);
  Evict(file);
  ReadPage(file, first_block);
  REQUIRE(PageResident(file, first_block));
  REQUIRE_FALSE(PageResident(file, other_block));
  CHECK(batch() == second_cold);
  // That batch read nothing itself, so the next may trust the map too; an
  // eviction is still seen by its first block's check, and it reads again.
  Evict(file);
  const uint64_t third_cold = batch();
  CHECK(third_cold > second_cold);
  // That batch found every block missing. Evicted again, with a later
  // block's page (not the first's) brought back, the next batch asks of its
  // first block only, finds it missing too, and reads every block, that
  // one as well.
  Evict(file);
  ReadPage(file, other_block);
  REQUIRE(PageResident(file, other_block));
  REQUIRE_FALSE(PageResident(file, first_block));
  CHECK(batch() - third_cold == third_cold - second_cold);
}

TEST_CASE("a corrupt block fails only the keys it holds in a batch",
          "[arena][batch]") {
  const ReadPath path = GENERATE(ReadPath::kMmap, ReadPath::kPread,
                                 ReadPath::kCache, ReadPath::kDirect);
  const bool uring = GENERATE(true, false);
  CAPTURE(ReadPathName(path), uring);
  testing::TempDir dir;
  const Model model = BatchModel();
  const std::string file = dir.File("t.arena");
  testing::BuildFile(file, model, BuilderOptions());
  // The keys of shard 17's block 1 (the damaged one) and of its
  // neighbours.
  std::vector<std::string> bad;
  std::vector<std::string> good;
  uint64_t offset = 0;
  {
    auto clean = Reader::Open(file, ReaderOptions());
    REQUIRE(clean.ok());
    REQUIRE(clean.value()->BlockCount(17) >= 3);
    ReadBuffer buffer;
    for (uint32_t blk = 0; blk < 3; ++blk) {
      BlockContents c;
      REQUIRE(clean.value()->ReadBlock(17, blk, false, &buffer, &c).ok());
      for (uint32_t i = 0; i < c.count; ++i) {
        (blk == 1 ? bad : good).emplace_back(c.key(i));
      }
    }
    offset = clean.value()->BlockOffset(17, 1);
  }
  std::string bytes = testing::ReadAll(file);
  bytes[offset + kBlockHeaderSize + 5] ^= 0x40;  // a key byte
  testing::WriteAll(file, bytes);
  Evict(file);
  ReaderOptions ro;
  ro.verify_checksums = true;
  ro.read_path = path;
  auto reader = Reader::Open(file, ro);
  if (!reader.ok() && path == ReadPath::kDirect) {
    WARN("O_DIRECT refused here: " << reader.status().message());
    return;
  }
  REQUIRE(reader.ok());
  std::vector<std::string_view> keys;
  for (size_t i = 0; i < std::max(bad.size(), good.size()); ++i) {
    if (i < good.size()) keys.push_back(good[i]);
    if (i < bad.size()) keys.push_back(bad[i]);
  }
  BatchScratch scratch(uring);
  // Twice: a block that failed its check is neither cached nor marked as
  // checked, so the second batch fails the same keys again.
  for (int round = 0; round < 2; ++round) {
    CAPTURE(round);
    std::vector<GetResult> results(keys.size());
    reader.value()->MultiGet(keys, results, &scratch);
    size_t failed = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      const bool in_bad =
          std::find(bad.begin(), bad.end(), keys[i]) != bad.end();
      if (in_bad) {
        REQUIRE(results[i].status.code() == Code::kCorruption);
        CHECK_THAT(results[i].status.message(),
                   Catch::Contains(file) &&
                       Catch::Contains("offset " + std::to_string(offset)));
        ++failed;
      } else {
        REQUIRE(results[i].status.ok());
        REQUIRE(results[i].found);
        REQUIRE(results[i].value == model.at(std::string(keys[i])));
      }
    }
    CHECK(failed == bad.size());
  }
}

TEST_CASE(
    "the cache path keeps a batch's frames pinned until the scratch's next "
    "batch or Release, and its values point into them",
    "[arena][batch]") {
  testing::TempDir dir;
  // Values of 80 bytes in three shards: about 200 blocks, against a cache
  // of 64 frames.
  Rng rng(41);
  Model model;
  for (int shard : {1, 2, 3}) {
    for (int i = 0; i < 2500; ++i) {
      std::string k = rng.Bytes(20);
      k[0] = static_cast<char>(shard);
      model[k] = rng.Bytes(80);
    }
  }
  const std::string file = dir.File("t.arena");
  testing::BuildFile(file, model, BuilderOptions());
  // The first key of every block, from a reader without a cache.
  std::vector<std::string> firsts;
  {
    auto clean = Reader::Open(file, ReaderOptions());
    REQUIRE(clean.ok());
    ReadBuffer buffer;
    for (int shard : {1, 2, 3}) {
      for (uint32_t b = 0; b < clean.value()->BlockCount(shard); ++b) {
        BlockContents c;
        REQUIRE(clean.value()->ReadBlock(shard, b, false, &buffer, &c).ok());
        firsts.emplace_back(c.key(0));
      }
    }
  }
  REQUIRE(firsts.size() >= 116);
  ReaderOptions ro;
  ro.verify_checksums = true;
  ro.read_path = ReadPath::kCache;
  ro.cache_bytes = 64 * kBlockSize;
  auto reader = Reader::Open(file, ro);
  REQUIRE(reader.ok());
  const BlockCache& cache = *reader.value()->cache();
  REQUIRE(cache.slots() == 64);
  // A: 16 blocks, so 16 frames pinned once it returns.
  const std::vector<std::string_view> a_keys(firsts.begin(),
                                             firsts.begin() + 16);
  const std::vector<std::string_view> b_keys(firsts.begin() + 16,
                                             firsts.begin() + 116);
  std::vector<GetResult> a(a_keys.size()), b(b_keys.size());
  BatchScratch sa(true), sb(true);
  reader.value()->MultiGet(a_keys, a, &sa);
  REQUIRE(cache.loads() == 16);
  for (const GetResult& r : a) REQUIRE(r.found);
  // B: 100 other blocks. Only the 48 frames A leaves free take loads; the
  // rest are read into B's own slots. A's values are untouched.
  reader.value()->MultiGet(b_keys, b, &sb);
  CHECK(cache.loads() == 16 + 48);
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    REQUIRE(a[i].value == model.at(firsts[i]));
  }
  for (size_t i = 0; i < b.size(); ++i) {
    CAPTURE(i);
    REQUIRE(b[i].value == model.at(firsts[16 + i]));
  }
  // Released, A's frames are free: B's batch again loads 16 of the 52
  // blocks it could not cache the first time (its own batch re-pins the
  // 48 it has).
  sa.Release();
  reader.value()->MultiGet(b_keys, b, &sb);
  CHECK(cache.loads() == 16 + 48 + 16);
  for (size_t i = 0; i < b.size(); ++i) {
    CAPTURE(i);
    REQUIRE(b[i].value == model.at(firsts[16 + i]));
  }
  sb.Release();
}

}  // namespace
}  // namespace flatbench::arena
