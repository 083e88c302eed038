#include "bench/histogram.h"

#include <catch2/catch.hpp>

namespace flatbench::bench {
namespace {

TEST_CASE("histogram buckets round-trip within 1/64 relative error",
          "[bench][histogram]") {
  for (uint64_t v : {0ULL, 1ULL, 63ULL, 64ULL, 65ULL, 1000ULL, 88'000ULL,
                     123'456'789ULL, 1ULL << 40, ~0ULL}) {
    CAPTURE(v);
    int b = Histogram::BucketOf(v);
    REQUIRE(b >= 0);
    REQUIRE(b < Histogram::kBuckets);
    uint64_t low = Histogram::BucketLow(b);
    CHECK(low <= v);
    CHECK(v - low < Histogram::BucketWidth(b));
    CHECK(static_cast<double>(Histogram::BucketWidth(b)) <=
          std::max(1.0, static_cast<double>(v) / 64.0));
  }
}

TEST_CASE("percentiles and mean of a known distribution, merged",
          "[bench][histogram]") {
  Histogram a, b;
  // 1..10000 ns split over two threads.
  for (uint64_t v = 1; v <= 10000; ++v) (v % 2 ? a : b).Record(v);
  a.Merge(b);
  CHECK(a.count() == 10000);
  CHECK(a.Mean() == Approx(5000.5));
  CHECK(a.Percentile(0.5) == Approx(5000).epsilon(0.02));
  CHECK(a.Percentile(0.99) == Approx(9900).epsilon(0.02));
  CHECK(a.Percentile(0.999) == Approx(9990).epsilon(0.02));
  CHECK(a.Percentile(1.0) <= 10000);
  CHECK(Histogram().Percentile(0.5) == 0);
}

}  // namespace
}  // namespace flatbench::bench
