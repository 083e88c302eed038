// Keys drawn for passes cover the whole key space: their first bytes (the
// arena's shard) spread over all 256 values, and a pass never repeats a key.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "bench/key_plan.h"
#include "bench/schedule.h"
#include "datagen/sampler.h"

namespace flatbench::bench {
namespace {

using datagen::KeyKind;

// Chi-square critical value for 255 degrees of freedom at p = 0.001
// (Wilson-Hilferty: 255 * (1 - 2/(9*255) + 3.0902 * sqrt(2/(9*255)))^3).
constexpr double kChiSquare255At001 = 330.5;

double ChiSquareOfFirstBytes(const KeyPlan& plan, int threads, uint64_t rpt) {
  uint64_t counts[256] = {0};
  for (int t = 0; t < threads; ++t) {
    for (uint64_t i = 0; i < rpt; ++i) {
      ++counts[static_cast<uint8_t>(plan.Key(t, i)[0])];
    }
  }
  const double expected = static_cast<double>(threads * rpt) / 256.0;
  double chi = 0;
  for (uint64_t c : counts) {
    REQUIRE(c > 0);  // Every shard is reached.
    double d = static_cast<double>(c) - expected;
    chi += d * d / expected;
  }
  return chi;
}

TEST_CASE("drawn keys spread over all 256 shards (chi-square, p=0.001)",
          "[bench][keys]") {
  auto spec = dataset::MakeSpec("smoke", 0, 0, dataset::kDefaultSeed);
  REQUIRE(spec.ok());
  auto [table, kind] =
      GENERATE(std::make_pair(Table::kAccount, KeyKind::kHit),
               std::make_pair(Table::kAccount, KeyKind::kMissAbsent),
               std::make_pair(Table::kStorage, KeyKind::kHit),
               std::make_pair(Table::kStorage, KeyKind::kMissAbsent),
               std::make_pair(Table::kStorage, KeyKind::kMissLiveAccount));
  const uint64_t seed = DrawSeed(kDefaultDrawSeed, table, kind);
  CAPTURE(TableName(table), datagen::KeyKindName(kind), seed);
  datagen::Sampler sampler(spec.value(), table, kind, seed);
  // 8 threads x 3200 reads = 100 keys per shard expected.
  KeyPlan plan(sampler, table, /*first_index=*/12345, 8, 3200);
  double chi = ChiSquareOfFirstBytes(plan, 8, 3200);
  CAPTURE(chi);
  CHECK(chi < kChiSquare255At001);
}

TEST_CASE("a pass reads distinct keys, and the next pass new ones",
          "[bench][keys]") {
  auto spec = dataset::MakeSpec("tiny", 0, 0, dataset::kDefaultSeed);
  REQUIRE(spec.ok());
  datagen::Sampler sampler(spec.value(), Table::kAccount, KeyKind::kHit, 7);
  // Two consecutive passes of 4 x 1000 keys: 8000 of the 10000 accounts.
  KeyPlan first(sampler, Table::kAccount, 0, 4, 1000);
  KeyPlan second(sampler, Table::kAccount, 4000, 4, 1000);
  std::set<std::string> seen;
  for (const KeyPlan* p : {&first, &second}) {
    for (int t = 0; t < 4; ++t) {
      for (uint64_t i = 0; i < 1000; ++i) seen.emplace(p->Key(t, i));
    }
  }
  CHECK(seen.size() == 8000);
}

}  // namespace
}  // namespace flatbench::bench
