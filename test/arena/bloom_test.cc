// The bloom filter: no false negatives, and a measured false-positive rate
// within its computed bound.

#include "arena/bloom.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "arena/reader.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

TEST_CASE("bloom probes and lines follow the documented rules",
          "[arena][bloom]") {
  REQUIRE(BloomProbes(0) == 0);
  REQUIRE(BloomProbes(1) == 1);
  REQUIRE(BloomProbes(10) == 7);
  REQUIRE(BloomProbes(32) == kMaxBloomProbes);
  REQUIRE(BloomLines(0, 10) == 0);
  REQUIRE(BloomLines(1, 10) == 1);
  REQUIRE(BloomLines(512, 10) == 10);
  REQUIRE(BloomLines(513, 10) == 11);
  // The textbook rate for 10 bits/key, 7 probes is ~0.8%; blocking costs a
  // little more.
  const double fp = BloomExpectedFpRate(100000, BloomLines(100000, 10), 7);
  REQUIRE(fp > 0.008);
  REQUIRE(fp < 0.015);
}

TEST_CASE("raw filter has no false negatives and a bounded fp rate",
          "[arena][bloom]") {
  const uint32_t bits = GENERATE(4u, 10u, 16u);
  const uint64_t seed = 99 + bits;
  CAPTURE(bits, seed);
  testing::Rng rng(seed);
  const uint64_t n = 20000;
  const uint64_t lines = BloomLines(n, bits);
  const uint32_t probes = BloomProbes(bits);
  std::vector<char> filter(lines * kFilterLineBytes);
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < n; ++i) {
    keys.push_back(rng.Bytes(20));
    BloomAdd(FilterHash(keys.back()), probes, filter.data(), lines);
  }
  for (const auto& k : keys) {
    REQUIRE(BloomMayMatch(FilterHash(k), probes, filter.data(), lines));
  }
  const uint64_t trials = 100000;
  uint64_t hits = 0;
  for (uint64_t i = 0; i < trials; ++i) {
    hits +=
        BloomMayMatch(FilterHash(rng.Bytes(20)), probes, filter.data(), lines);
  }
  const double measured = static_cast<double>(hits) / trials;
  const double expected = BloomExpectedFpRate(n, lines, probes);
  CAPTURE(measured, expected);
  // Allow 20% relative plus a few standard errors of sampling noise.
  REQUIRE(measured <= expected * 1.2 + 0.002);
}

TEST_CASE("reader measures its fp rate within the computed bound",
          "[arena][bloom]") {
  testing::TempDir dir;
  testing::Rng rng(5);
  testing::Model model;
  for (int i = 0; i < 30000; ++i) model[rng.Bytes(20)] = rng.Bytes(8);
  BuilderOptions options;
  options.bloom_bits_per_key = 10;
  testing::BuildFile(dir.File("b.arena"), model, options);
  auto reader = Reader::Open(dir.File("b.arena"));
  REQUIRE(reader.ok());
  const double expected = reader.value()->info().expected_fp_rate;
  const double measured = reader.value()->MeasureFalsePositiveRate(100000, 11);
  CAPTURE(expected, measured);
  REQUIRE(expected > 0.0);
  REQUIRE(measured <= expected * 1.2 + 0.002);

  options.bloom_bits_per_key = 0;
  testing::BuildFile(dir.File("n.arena"), model, options);
  auto none = Reader::Open(dir.File("n.arena"));
  REQUIRE(none.ok());
  REQUIRE(none.value()->MeasureFalsePositiveRate(100, 1) == 1.0);
  REQUIRE(none.value()->info().filter_bytes == 0);
}

}  // namespace
}  // namespace flatbench::arena
