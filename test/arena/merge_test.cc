// Merging a delta into an arena store: the result against a store built
// from the merged state, damaged inputs, interruptions.
#include "arena/merge.h"

#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>

#include "arena/backend.h"
#include "arena/delta.h"
#include "arena/loader.h"
#include "test/arena/test_util.h"

using namespace flatbench;
using namespace flatbench::arena;
using namespace flatbench::arena::testing;
namespace fs = std::filesystem;

namespace {

BuilderOptions GenOptions() {
  BuilderOptions o;
  o.record_build_time = false;
  return o;
}

// Builds a store of both tables from `models` into `dir`.
void BuildStore(const std::string& dir, const Model models[kNumTables],
                unsigned jobs = 1) {
  fs::create_directories(dir);
  auto loader = ArenaLoader::Create(dir, GenOptions(), jobs);
  REQUIRE(loader.ok());
  for (int t = 0; t < kNumTables; ++t) {
    for (const auto& [k, v] : models[t]) {
      REQUIRE(loader.value()->Add(static_cast<Table>(t), k, v).ok());
    }
  }
  REQUIRE(loader.value()->Finish().ok());
}

struct Case {
  Model base[kNumTables];
  Model merged[kNumTables];
  Delta delta;
};

// A base of `n` keys per table and a delta that replaces, adds and erases
// some of them (and erases a few absent keys, which merge skips).
Case MakeCase(uint64_t seed, size_t n) {
  Rng rng(seed);
  Case c;
  for (int t = 0; t < kNumTables; ++t) {
    const size_t width = KeySize(static_cast<Table>(t));
    for (size_t i = 0; i < n; ++i) {
      c.base[t][rng.Bytes(width)] = rng.Bytes(1 + rng.Below(90));
    }
    c.merged[t] = c.base[t];
    std::map<std::string, DeltaOp> ops;
    for (const auto& [k, v] : c.base[t]) {
      const uint64_t r = rng.Below(10);
      if (r == 0) ops[k] = {k, false, rng.Bytes(rng.Below(100))};
      if (r == 1) ops[k] = {k, true, ""};
    }
    for (size_t i = 0; i < n / 5; ++i) {
      const std::string k = rng.Bytes(width);
      ops[k] = {k, rng.Below(4) == 0, ""};
      if (!ops[k].erase) ops[k].value = rng.Bytes(1 + rng.Below(60));
    }
    for (auto& [k, op] : ops) {
      if (op.erase) {
        c.merged[t].erase(k);
      } else {
        c.merged[t][k] = op.value;
      }
      c.delta.ops[t].push_back(op);
    }
  }
  return c;
}

std::string FileBytes(const std::string& dir, Table t) {
  return ReadAll(ArenaPath(dir, t));
}

}  // namespace

TEST_CASE("a merged store is byte-identical to one built from its state") {
  for (unsigned jobs : {1u, 2u, 3u}) {
    INFO("jobs " << jobs);
    TempDir tmp;
    const Case c = MakeCase(jobs, 4000);
    BuildStore(tmp / "base", c.base);
    BuildStore(tmp / "want", c.merged);
    auto stats = MergeStore(tmp / "base", c.delta, GenOptions(), jobs);
    INFO(stats.status().message());
    REQUIRE(stats.ok());
    for (int t = 0; t < kNumTables; ++t) {
      const Table table = static_cast<Table>(t);
      CHECK(FileBytes(tmp / "base", table) == FileBytes(tmp / "want", table));
      CHECK(stats->pairs_in[t] == c.base[t].size());
      CHECK(stats->pairs_out[t] == c.merged[t].size());
    }
    CHECK(stats->erase_absent > 0);
    CHECK(stats->added > 0);
    CHECK(stats->replaced > 0);
    CHECK(stats->erased > 0);
    CHECK_FALSE(fs::exists(MergeDir(tmp / "base")));
    // Merged again, the new store is unchanged: what a repeated merge after
    // an interruption does.
    REQUIRE(MergeStore(tmp / "base", c.delta, GenOptions(), jobs).ok());
    CHECK(FileBytes(tmp / "base", Table::kStorage) ==
          FileBytes(tmp / "want", Table::kStorage));
  }
}

TEST_CASE("an empty delta and an empty base merge") {
  TempDir tmp;
  Model empty[kNumTables];
  BuildStore(tmp / "base", empty);
  Case c = MakeCase(7, 300);
  for (auto& ops : c.delta.ops) {
    std::erase_if(ops, [](const DeltaOp& o) { return o.erase; });
  }
  Model want[kNumTables];
  for (int t = 0; t < kNumTables; ++t) {
    for (const auto& op : c.delta.ops[t]) want[t][op.key] = op.value;
  }
  BuildStore(tmp / "want", want);
  REQUIRE(MergeStore(tmp / "base", c.delta, GenOptions(), 2).ok());
  CHECK(FileBytes(tmp / "base", Table::kAccount) ==
        FileBytes(tmp / "want", Table::kAccount));
  const std::string before = FileBytes(tmp / "want", Table::kStorage);
  REQUIRE(MergeStore(tmp / "want", Delta(), GenOptions(), 1).ok());
  CHECK(FileBytes(tmp / "want", Table::kStorage) == before);
}

TEST_CASE("a delta file round-trips and damage to it is refused") {
  TempDir tmp;
  const Case c = MakeCase(3, 500);
  const std::string path = tmp / "d.delta";
  REQUIRE(WriteDelta(c.delta, path).ok());
  auto read = ReadDelta(path);
  REQUIRE(read.ok());
  for (int t = 0; t < kNumTables; ++t) {
    REQUIRE(read->ops[t].size() == c.delta.ops[t].size());
    for (size_t i = 0; i < c.delta.ops[t].size(); ++i) {
      CHECK(read->ops[t][i].key == c.delta.ops[t][i].key);
      CHECK(read->ops[t][i].erase == c.delta.ops[t][i].erase);
      CHECK(read->ops[t][i].value == c.delta.ops[t][i].value);
    }
  }
  const std::string bytes = ReadAll(path);
  // Every byte flipped somewhere, and cut anywhere: refused, naming the file.
  Rng rng(11);
  for (int i = 0; i < 200; ++i) {
    std::string damaged = bytes;
    const size_t at = rng.Below(damaged.size());
    damaged[at] = static_cast<char>(damaged[at] ^ (1 + rng.Below(255)));
    auto d = DecodeDelta(damaged, path);
    INFO("byte " << at);
    REQUIRE(d.status().code() == Code::kCorruption);
    CHECK_THAT(d.status().message(), Catch::StartsWith(path));
  }
  for (size_t cut :
       {size_t{0}, size_t{7}, bytes.size() / 2, bytes.size() - 1}) {
    auto d = DecodeDelta(std::string_view(bytes).substr(0, cut), path);
    REQUIRE(d.status().code() == Code::kCorruption);
  }
  CHECK(ReadDelta(tmp / "none.delta").status().code() == Code::kMissingInput);
  // A delta out of order is refused before anything is written.
  Delta unsorted = c.delta;
  std::swap(unsorted.ops[1][0], unsorted.ops[1][1]);
  CHECK(WriteDelta(unsorted, tmp / "u.delta").code() == Code::kCorruption);
  CHECK_FALSE(fs::exists(tmp / "u.delta"));
}

TEST_CASE("a damaged base is refused and left as it was") {
  TempDir tmp;
  const Case c = MakeCase(5, 3000);
  BuildStore(tmp / "base", c.base);
  const std::string path = ArenaPath(tmp / "base", Table::kStorage);
  std::string bytes = ReadAll(path);
  // A byte of the first data block (after the header page).
  bytes[kBlockSize + 100] = static_cast<char>(bytes[kBlockSize + 100] ^ 0x5a);
  WriteAll(path, bytes);
  const std::string account = FileBytes(tmp / "base", Table::kAccount);
  auto merged = MergeStore(tmp / "base", c.delta, GenOptions(), 2);
  REQUIRE(merged.status().code() == Code::kCorruption);
  CHECK_THAT(merged.status().message(), Catch::Contains(path));
  CHECK(ReadAll(path) == bytes);
  CHECK(FileBytes(tmp / "base", Table::kAccount) == account);
  CHECK_FALSE(fs::exists(MergeDir(tmp / "base")));
  CHECK(MergeStore(tmp / "none", c.delta, GenOptions(), 1).status().code() ==
        Code::kMissingInput);
}

TEST_CASE("an interrupted merge leaves the old base; the next one completes") {
  TempDir tmp;
  const Case c = MakeCase(9, 3000);
  BuildStore(tmp / "base", c.base);
  BuildStore(tmp / "want", c.merged);
  const std::string before = FileBytes(tmp / "base", Table::kAccount);
  volatile std::sig_atomic_t stop = 1;
  auto stopped = MergeStore(tmp / "base", c.delta, GenOptions(), 2, &stop);
  REQUIRE(stopped.status().code() == Code::kIOError);
  CHECK(FileBytes(tmp / "base", Table::kAccount) == before);
  CHECK_FALSE(fs::exists(MergeDir(tmp / "base")));
  // What a kill leaves: a half-written new store beside the base.
  fs::create_directories(MergeDir(tmp / "base"));
  WriteAll(ArenaPath(MergeDir(tmp / "base"), Table::kAccount), "partial");
  REQUIRE(MergeStore(tmp / "base", c.delta, GenOptions(), 2).ok());
  CHECK(FileBytes(tmp / "base", Table::kStorage) ==
        FileBytes(tmp / "want", Table::kStorage));
  CHECK_FALSE(fs::exists(MergeDir(tmp / "base")));
}
