// The builder's output does not depend on its jobs: shards built by worker
// threads and written in shard order give the same bytes as one thread.
// Also in suite 'threads' (ThreadSanitizer). The header's build time is
// switched off (BuilderOptions::record_build_time) so whole files compare.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "arena/builder.h"
#include "common/rng.h"
#include "test/temp_dir.h"

using namespace flatbench;
using namespace flatbench::arena;

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Ascending 20-byte keys over every first byte except a few (empty
// shards), with values of varied sizes.
std::vector<std::pair<std::string, std::string>> Pairs() {
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

Result<BuildStats> Build(const std::string& path, const BuilderOptions& o,
                         unsigned jobs) {
  FLATBENCH_ASSIGN_OR_RETURN(auto b, Builder::Create(path, o, jobs));
  for (const auto& [k, v] : Pairs()) FLATBENCH_RETURN_IF_ERROR(b->Add(k, v));
  FLATBENCH_RETURN_IF_ERROR(b->Finish());
  return b->stats();
}

}  // namespace

TEST_CASE("an arena file is byte-identical whatever the builder's jobs") {
  testing::TempDir tmp;
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
  testing::TempDir tmp;
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
