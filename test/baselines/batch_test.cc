// Every backend's MultiGet answers a batch exactly as the same number of
// single Gets do: keys of both tables, in any order, repeated, absent and
// of the other table's width, at batch sizes from 1 to past io_uring's
// ring; with OpenOptions::batch_prefetch on and off (the arena's io_uring
// or pread loop, LMDB's advice or loop alone).

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "backends/table.h"
#include "common/rng.h"
#include "datagen/dataset_dir.h"
#include "datagen/stream.h"
#include "test/datagen/collect_sink.h"
#include "test/tiny_dataset.h"

using namespace flatbench;

namespace {

// The arena's O_DIRECT variant needs a file system that takes O_DIRECT;
// the arena's own batch test covers that path (test/arena/batch_test.cc).
constexpr const char* kBatchSkipped = "arena+direct";

// Keys of `table`'s model: hits, misses next to them, the other table's
// keys (wrong width), and repeats, shuffled with a fixed seed.
std::vector<std::string> Pool(const testing::CollectSink& model, Table table,
                              uint64_t seed) {
  SplitMix64 rng(seed);
  const auto& pairs = model.pairs[static_cast<int>(table)];
  const auto& other = model.pairs[1 - static_cast<int>(table)];
  std::vector<std::string> keys;
  for (size_t i = 0; i < pairs.size(); i += 3) {
    keys.push_back(pairs[i].first);
    if (rng.Next() % 3 == 0) {
      std::string miss = pairs[i].first;
      miss.back() = static_cast<char>(miss.back() ^ 0x80);
      keys.push_back(miss);
    }
    if (rng.Next() % 10 == 0) keys.push_back(pairs[i].first);
    if (rng.Next() % 50 == 0) keys.push_back(other[i % other.size()].first);
  }
  for (size_t i = keys.size(); i > 1; --i) {
    std::swap(keys[i - 1], keys[rng.Next() % i]);
  }
  return keys;
}

void CheckBackend(const std::string& name, const datagen::Dataset& ds,
                  const testing::CollectSink& model, bool prefetch) {
  CAPTURE(name, prefetch);
  OpenOptions options;
  options.verify_checksums = true;
  options.batch_prefetch = prefetch;
  options.cache_bytes = 64 << 12;  // arena+cache: loads evict one another
  auto backend = backends::Open(name, ds.BackendDir(name), options);
  REQUIRE(backend.ok());
  auto batch = backend.value()->NewSession();
  auto single = backend.value()->NewSession();
  REQUIRE(batch.ok());
  REQUIRE(single.ok());
  for (const Table table : {Table::kAccount, Table::kStorage}) {
    CAPTURE(TableName(table));
    const std::vector<std::string> pool = Pool(model, table, 41);
    size_t at = 0;
    for (size_t size : {1, 2, 5, 32, 64, 257, 600}) {
      CAPTURE(size);
      std::vector<std::string_view> keys;
      for (size_t i = 0; i < size; ++i) {
        keys.push_back(pool[(at + i) % pool.size()]);
      }
      at += size;
      std::vector<GetResult> results(size);
      REQUIRE(batch.value()->MultiGet(table, keys, results).ok());
      for (size_t i = 0; i < size; ++i) {
        CAPTURE(i);
        bool found = false;
        std::string_view value;
        const Status st = single.value()->Get(table, keys[i], &found, &value);
        REQUIRE(results[i].status.code() == st.code());
        if (!st.ok()) continue;
        REQUIRE(results[i].found == found);
        if (found) REQUIRE(results[i].value == value);
      }
    }
    // Sizes that differ are the caller's error, not a key's.
    std::vector<std::string_view> two = {pool[0], pool[1]};
    std::vector<GetResult> one(1);
    CHECK(batch.value()->MultiGet(table, two, one).code() == Code::kUsage);
  }
  const BatchIoStats stats = batch.value()->BatchIo();
  CHECK(stats.batches >= 14);
}

}  // namespace

TEST_CASE("every backend's batch answers as its single gets do",
          "[baselines][batch]") {
  const dataset::Spec spec =
      dataset::MakeSpec("tiny", 0, 0, dataset::kDefaultSeed).value();
  testing::CollectSink model;
  REQUIRE(datagen::GenerateSorted(spec, &model).ok());
  auto ds = datagen::Dataset::Open(testing::TinyDatasetDir());
  REQUIRE(ds.ok());
  for (const auto& name : backends::Names()) {
    if (name == kBatchSkipped || !testing::TinyHolds(name)) continue;
    for (bool prefetch : {true, false}) {
      CheckBackend(name, ds.value(), model, prefetch);
    }
  }
}
