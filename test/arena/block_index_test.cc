// FindBlock (interpolation with fallback) and the in-block search agree with
// std::upper_bound / std::lower_bound on uniform, skewed and duplicate data.

#include "arena/block_index.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "arena/block.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

uint32_t Expected(const std::vector<uint64_t>& v, uint64_t x) {
  auto it = std::upper_bound(v.begin(), v.end(), x);
  return it == v.begin() ? kNoBlock : static_cast<uint32_t>(it - v.begin() - 1);
}

TEST_CASE("FindBlock matches upper_bound", "[arena][index]") {
  const uint32_t n = GENERATE(1u, 2u, 9u, 100u, 10000u, 100000u);
  const int kind = GENERATE(0, 1, 2, 3);  // uniform, skewed, dups, constant
  const uint64_t seed = 31 * n + static_cast<uint64_t>(kind);
  CAPTURE(n, kind, seed);
  testing::Rng rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) {
    const uint64_t r = rng.Next();
    switch (kind) {
      case 0:
        x = r;
        break;
      case 1:
        x = (r >> 32) * (r >> 32);
        break;
      case 2:
        x = (r % 50) << 40;
        break;
      default:
        x = 12345;
        break;
    }
  }
  std::sort(v.begin(), v.end());
  std::vector<uint64_t> queries = {0, UINT64_MAX};
  for (uint32_t i = 0; i < std::min<uint32_t>(n, 2000); ++i) {
    const uint64_t x = v[rng.Below(n)];
    queries.push_back(x);
    queries.push_back(x - 1);
    queries.push_back(x + 1);
    queries.push_back(rng.Next());
  }
  // Read through an unaligned copy: the index may sit anywhere in the map.
  std::vector<char> bytes(8 * size_t{n} + 1);
  std::memcpy(bytes.data() + 1, v.data(), 8 * size_t{n});
  const char* index = bytes.data() + 1;
  for (uint64_t q : queries) {
    CAPTURE(q);
    REQUIRE(FindBlock(index, n, q) == Expected(v, q));
    const uint32_t first = FirstBlockAtLeast(index, n, q);
    REQUIRE(first == static_cast<uint32_t>(
                         std::lower_bound(v.begin(), v.end(), q) - v.begin()));
  }
}

TEST_CASE("in-block search is right whatever the bounds", "[arena][index]") {
  const size_t width = GENERATE(1, 8, 20);
  CAPTURE(width);
  testing::Rng rng(4242 + width);
  std::vector<std::string> keys;
  for (int i = 0; i < 150; ++i) keys.push_back(rng.Bytes(width));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::string body;
  for (const auto& k : keys) body += k;
  body.append(2 * keys.size(), '\0');  // value ends: all values empty
  BlockContents c;
  c.keys = body.data();
  c.ends = body.data() + keys.size() * width;
  c.values = body.data() + body.size();
  c.count = static_cast<uint32_t>(keys.size());
  c.key_width = static_cast<uint32_t>(width);
  const uint64_t bounds[][2] = {{0, UINT64_MAX},
                                {UINT64_MAX / 2, UINT64_MAX / 2 + 1},
                                {UINT64_MAX, 0},
                                {5, 5}};
  for (int i = 0; i < 500; ++i) {
    std::string target = rng.Bytes(width);
    if (i % 2 == 0) target = keys[rng.Below(keys.size())];
    const auto want = static_cast<uint32_t>(
        std::lower_bound(keys.begin(), keys.end(), target) - keys.begin());
    REQUIRE(c.LowerBound(target) == want);
    for (const auto& b : bounds) {
      REQUIRE(c.LowerBoundBetween(target, b[0], b[1]) == want);
    }
  }
}

}  // namespace
}  // namespace flatbench::arena
