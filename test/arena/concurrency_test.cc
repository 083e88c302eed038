// Concurrent readers of one Reader see identical results.

#include <xxhash.h>

#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

#include "arena/reader.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

// Digest of found flags and values for a fixed key list.
uint64_t Digest(const Reader& reader, const std::vector<std::string>& keys,
                bool* ok) {
  ReadBuffer buffer;
  uint64_t h = 0;
  for (const auto& k : keys) {
    bool found = false;
    std::string_view value;
    if (!reader.Get(k, &found, &value, &buffer).ok()) *ok = false;
    h = XXH3_64bits_withSeed(value.data(), found ? value.size() : 0,
                             h ^ (found ? 1 : 2));
  }
  return h;
}

TEST_CASE("eight threads read identical results", "[arena][threads]") {
  const bool compress = GENERATE(false, true);
  const bool lazy = GENERATE(false, true);
  // The mmap path shares its verify-once bitmap between the threads; the
  // cache path, with 64 frames for about 200 blocks, evicts and reloads
  // under them.
  const ReadPath path = GENERATE(ReadPath::kMmap, ReadPath::kCache);
  CAPTURE(compress, lazy, ReadPathName(path));
  testing::TempDir dir;
  testing::Rng rng(21);
  testing::Model model;
  for (int i = 0; i < 10000; ++i) model[rng.Bytes(52)] = rng.Bytes(32);
  BuilderOptions options;
  options.key_width = 52;
  options.compress = compress;
  testing::BuildFile(dir.File("c.arena"), model, options);
  ReaderOptions ro;
  ro.lazy = lazy;
  ro.verify_checksums = true;
  ro.read_path = path;
  ro.cache_bytes = 0;
  auto reader = Reader::Open(dir.File("c.arena"), ro);
  REQUIRE(reader.ok());

  std::vector<std::string> keys;
  for (const auto& [k, v] : model) keys.push_back(k);
  for (int i = 0; i < 2500; ++i) keys.push_back(rng.Bytes(52));
  bool single_ok = true;
  const uint64_t expect = Digest(*reader.value(), keys, &single_ok);
  REQUIRE(single_ok);

  constexpr int kThreads = 8;
  std::vector<uint64_t> got(kThreads);
  std::vector<char> oks(kThreads, 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      bool ok = true;
      got[t] = Digest(*reader.value(), keys, &ok);
      oks[t] = ok;
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    CAPTURE(t);
    REQUIRE(oks[t]);
    REQUIRE(got[t] == expect);
  }
  if (path == ReadPath::kCache) {
    const BlockCache& cache = *reader.value()->cache();
    CAPTURE(cache.slots(), cache.loads(), cache.evictions());
    REQUIRE(cache.slots() == 64);
    REQUIRE(cache.evictions() > 0);
  }
}

}  // namespace
}  // namespace flatbench::arena
