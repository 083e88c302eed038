// The builder's output does not depend on its jobs: shards built by worker
// threads and written in shard order give the same bytes as one thread.
// Also in suite 'threads' (ThreadSanitizer). The header's build time is
// switched off (BuilderOptions::record_build_time) so whole files compare.
// The files are in memory: the cases compare bytes, not durability, and on
// disk each build's fsyncs waited on every other writer of the disk.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "arena/builder.h"
#include "common/rng.h"
#include "test/temp_dir.h"

namespace flatbench::arena {
namespace {

using flatbench::testing::ReadAll;
using flatbench::testing::TempDir;

// Ascending 20-byte keys over every first byte except a few (empty
// shards), with values of varied sizes.
std::vector<std::pair<std::string, std::string>> MakePairs() {
  std::vector<std::pair<std::string, std::string>> out;
  SplitMix64 rng(42);
  for (int shard = 0; shard < 256; ++shard) {
    if (shard % 37 == 5) continue;
    const int n = 1 + static_cast<int>(rng.Below(120));
    for (int i = 0; i < n; ++i) {
      std::string key(20, '\0');
      key[0] = static_cast<char>(shard);
      key[1] = static_cast<char>(i >> 8);
      key[2] = static_cast<char>(i);
      for (int j = 3; j < 20; ++j) key[j] = static_cast<char>(rng.Next());
      std::string value(rng.Below(200), 'v');
      for (char& c : value) c = static_cast<char>('a' + rng.Below(4));
      out.emplace_back(std::move(key), std::move(value));
    }
  }
  return out;
}

// MakePairs(), made once: every case and build reads the same pairs.
const std::vector<std::pair<std::string, std::string>>& Pairs() {
  static const auto* pairs = new auto(MakePairs());
  return *pairs;
}

Result<BuildStats> Build(const std::string& path, const BuilderOptions& o,
                         unsigned jobs) {
  FLATBENCH_ASSIGN_OR_RETURN(auto b, Builder::Create(path, o, jobs));
  for (const auto& [k, v] : Pairs()) FLATBENCH_RETURN_IF_ERROR(b->Add(k, v));
  FLATBENCH_RETURN_IF_ERROR(b->Finish());
  return b->stats();
}

}  // namespace

TEST_CASE("an arena file is byte-identical whatever the builder's jobs") {
  TempDir tmp(TempDir::Where::kMemory);
  BuilderOptions o;
  o.record_build_time = false;
  o.compress = GENERATE(false, true);
  CAPTURE(o.compress);
  auto one = Build(tmp / "one.arena", o, 1);
  REQUIRE(one.ok());
  const std::string expected = ReadAll(tmp / "one.arena");
  REQUIRE(expected.size() == one->file_bytes);
  for (unsigned jobs : {2u, 3u, 8u}) {
    CAPTURE(jobs);
    const std::string path = tmp / ("jobs" + std::to_string(jobs) + ".arena");
    auto many = Build(path, o, jobs);
    REQUIRE(many.ok());
    CHECK(many->key_count == one->key_count);
    CHECK(many->block_count == one->block_count);
    CHECK(many->index_bytes == one->index_bytes);
    CHECK(many->filter_bytes == one->filter_bytes);
    CHECK(ReadAll(path) == expected);
  }
}

TEST_CASE("a builder with jobs stops at bad input and leaves no file") {
  TempDir tmp(TempDir::Where::kMemory);
  const std::string path = tmp / "bad.arena";
  auto b = Builder::Create(path, {}, 2);
  REQUIRE(b.ok());
  auto pairs = Pairs();
  // Enough shards for threads to be in flight, then a key out of order.
  size_t i = 0;
  for (; i < pairs.size() / 2; ++i) {
    REQUIRE(b.value()->Add(pairs[i].first, pairs[i].second).ok());
  }
  Status st = b.value()->Add(pairs[0].first, pairs[0].second);
  CHECK(st.code() == Code::kCorruption);
  CHECK(b.value()->Finish().code() == Code::kCorruption);
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
}

namespace {

// Pairs [begin, end) of `pairs` as a run (BuildShard).
class VectorRun final : public PairRun {
 public:
  VectorRun(const std::vector<std::pair<std::string, std::string>>& pairs,
            size_t begin, size_t end)
      : pairs_(pairs), begin_(begin), end_(end) {}
  size_t size() const override { return end_ - begin_; }
  std::string_view key(size_t i) const override {
    return pairs_[begin_ + i].first;
  }
  std::string_view value(size_t i) const override {
    return pairs_[begin_ + i].second;
  }

 private:
  const std::vector<std::pair<std::string, std::string>>& pairs_;
  size_t begin_, end_;
};

// Where each shard's pairs start in `pairs`, and the end.
std::vector<size_t> ShardStarts(
    const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i == 0 || pairs[i].first[0] != pairs[i - 1].first[0]) {
      starts.push_back(i);
    }
  }
  starts.push_back(pairs.size());
  return starts;
}

}  // namespace

TEST_CASE("shards built whole give the bytes of pairs added one by one") {
  TempDir tmp(TempDir::Where::kMemory);
  BuilderOptions o;
  o.record_build_time = false;
  o.compress = GENERATE(false, true);
  CAPTURE(o.compress);
  REQUIRE(Build(tmp / "add.arena", o, 1).ok());
  const auto pairs = Pairs();
  const std::vector<size_t> starts = ShardStarts(pairs);
  // Every other shard built whole, the rest added pair by pair, so both
  // ways meet on both sides.
  const unsigned jobs = GENERATE(1u, 2u);
  CAPTURE(jobs);
  auto b = Builder::Create(tmp / "whole.arena", o, jobs);
  REQUIRE(b.ok());
  for (size_t s = 0; s + 1 < starts.size(); ++s) {
    if (s % 2 == 0) {
      auto built = BuildShard(o, VectorRun(pairs, starts[s], starts[s + 1]));
      REQUIRE(built.ok());
      REQUIRE(b.value()->AddShard(&built.value()).ok());
    } else {
      for (size_t i = starts[s]; i < starts[s + 1]; ++i) {
        REQUIRE(b.value()->Add(pairs[i].first, pairs[i].second).ok());
      }
    }
  }
  REQUIRE(b.value()->Finish().ok());
  CHECK(b.value()->stats().key_count == pairs.size());
  CHECK(ReadAll(tmp / "whole.arena") == ReadAll(tmp / "add.arena"));
}

TEST_CASE("a shard built whole checks its run as Add checks pairs") {
  BuilderOptions o;
  auto pairs = Pairs();
  const std::vector<size_t> starts = ShardStarts(pairs);
  const size_t begin = starts[3], end = starts[4];
  REQUIRE(end - begin >= 2);
  SECTION("out of order") {
    std::swap(pairs[begin], pairs[begin + 1]);
    auto r = BuildShard(o, VectorRun(pairs, begin, end));
    REQUIRE(r.status().code() == Code::kCorruption);
    CHECK(r.status().message().find("pair 1: key not ascending") !=
          std::string::npos);
  }
  SECTION("repeated") {
    pairs[begin + 1] = pairs[begin];
    auto r = BuildShard(o, VectorRun(pairs, begin, end));
    REQUIRE(r.status().code() == Code::kCorruption);
    CHECK(r.status().message().find("duplicate key") != std::string::npos);
  }
  SECTION("another shard's key") {
    auto r = BuildShard(o, VectorRun(pairs, begin, end + 1));
    REQUIRE(r.status().code() == Code::kCorruption);
    CHECK(r.status().message().find("another shard") != std::string::npos);
  }
  SECTION("a key of another width") {
    pairs[begin + 1].first.pop_back();
    auto r = BuildShard(o, VectorRun(pairs, begin, end));
    REQUIRE(r.status().code() == Code::kCorruption);
    CHECK(r.status().message().find("key width 19") != std::string::npos);
  }
}

TEST_CASE("a builder refuses a whole shard out of order, and pairs after it") {
  TempDir tmp(TempDir::Where::kMemory);
  BuilderOptions o;
  const auto pairs = Pairs();
  const std::vector<size_t> starts = ShardStarts(pairs);
  auto second = BuildShard(o, VectorRun(pairs, starts[1], starts[2]));
  REQUIRE(second.ok());
  SECTION("a shard before the keys added") {
    auto b = Builder::Create(tmp / "x.arena", o, 1);
    REQUIRE(b.ok());
    REQUIRE(
        b.value()->Add(pairs[starts[2]].first, pairs[starts[2]].second).ok());
    CHECK(b.value()->AddShard(&second.value()).code() == Code::kCorruption);
    CHECK(b.value()->Finish().code() == Code::kCorruption);
    CHECK_FALSE(std::filesystem::exists(tmp / "x.arena"));
  }
  SECTION("a pair of a shard added whole") {
    auto b = Builder::Create(tmp / "y.arena", o, 1);
    REQUIRE(b.ok());
    // The shard without its last pair, then that pair alone.
    auto most = BuildShard(o, VectorRun(pairs, starts[1], starts[2] - 1));
    REQUIRE(most.ok());
    REQUIRE(b.value()->AddShard(&most.value()).ok());
    const auto& last = pairs[starts[2] - 1];
    CHECK(b.value()->Add(last.first, last.second).code() == Code::kUsage);
    CHECK_FALSE(std::filesystem::exists(tmp / "y.arena.tmp"));
  }
}

}  // namespace flatbench::arena
