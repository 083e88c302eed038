// What a batch finds already in memory: on the mmap path, pages the page
// cache holds, asked of only while the answers vary (PageTrend); on the
// cache path, frames it keeps pinned until its scratch's next batch.

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "arena/batch.h"
#include "arena/reader.h"
#include "test/arena/batch_util.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

using testing::BatchModel;
using testing::Evict;
using testing::Model;
using testing::Rng;

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

// A batch's keys on the mmap path: the first key of shard 0's block 0 (the
// batch's first block: groups are in file order), then every key of shard
// 200 (other blocks); and where those blocks are.
struct TrendKeys {
  std::vector<std::string> owned;
  uint64_t first_block = 0;  // file offsets
  uint64_t other_block = 0;
  uint32_t blocks = 0;  // shard 200's
};

TrendKeys KeysForTrend(const std::string& file, const Model& model) {
  TrendKeys t;
  auto clean = Reader::Open(file);
  REQUIRE(clean.ok());
  ReadBuffer buffer;
  BlockContents c;
  REQUIRE(clean.value()->ReadBlock(0, 0, false, &buffer, &c).ok());
  t.owned.emplace_back(c.key(0));
  t.first_block = clean.value()->BlockOffset(0, 0);
  t.other_block = clean.value()->BlockOffset(200, 0);
  t.blocks = clean.value()->BlockCount(200);
  for (const auto& [k, v] : model) {
    if (static_cast<unsigned char>(k[0]) == 200) t.owned.push_back(k);
  }
  return t;
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
  const TrendKeys t = KeysForTrend(file, model);
  const std::vector<std::string>& owned = t.owned;
  const uint64_t first_block = t.first_block;
  const uint64_t other_block = t.other_block;
  const uint32_t blocks = t.blocks;
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
