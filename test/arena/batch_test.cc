// Reader::MultiGet answers every key exactly as Get does, on every read
// path, with io_uring and with the pread loop, for keys in any order,
// repeated, absent and of the wrong width; a corrupt block fails only the
// keys it holds, each with its own error, and the others are answered.

#include "arena/batch.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "arena/reader.h"
#include "test/arena/batch_util.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

using testing::BatchModel;
using testing::Evict;
using testing::Model;
using testing::Rng;

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

}  // namespace
}  // namespace flatbench::arena
