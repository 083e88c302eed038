// The results contract (common/results_schema.h): the cell-name grammar,
// the counter and context tables, and bench/RESULTS_FORMAT.md against them.
#include "common/results_schema.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

namespace flatbench::results {
namespace {

TEST_CASE("cell names round-trip through format and parse",
          "[report][schema]") {
  CellName c{"arena", "storage", "miss-live", "cold-lazy", 32, 4};
  std::string name = FormatCellName(c);
  CHECK(name == "arena/storage/miss-live/cold-lazy/threads:32/rep:4");
  auto p = ParseCellName(name);
  REQUIRE(p.has_value());
  CHECK(p->backend == "arena");
  CHECK(p->table == "storage");
  CHECK(p->kind == "miss-live");
  CHECK(p->mode == "cold-lazy");
  CHECK(p->threads == 32);
  CHECK(p->rep == 4);
  auto d = ParseCellName("lmdb/account/device/cold/threads:8/rep:0");
  REQUIRE(d.has_value());
  CHECK(d->kind == "device");
}

TEST_CASE("google-benchmark decorations before threads:N still parse",
          "[report][schema]") {
  auto p = ParseCellName(
      "rocksdb/account/hit/warm/iterations:100/real_time/threads:1/rep:0");
  REQUIRE(p.has_value());
  CHECK(p->mode == "warm");
  CHECK(p->threads == 1);
}

TEST_CASE("names outside the grammar do not parse", "[report][schema]") {
  auto bad = GENERATE(as<std::string>{}, "", "BM_Something/8",
                      "arena/account/hit/cold/threads:8",
                      "arena/account/hit/cold/rep:0/threads:8",
                      "arena/raw/hit/cold/threads:8/rep:0",
                      "device/raw/hit/cold/threads:8/rep:0",
                      "arena/account/hot/cold/threads:8/rep:0",
                      "arena/account/hit/tepid/threads:8/rep:0",
                      "arena/account/miss-live/cold/threads:8/rep:0",
                      "arena/account/device/warm/threads:8/rep:0",
                      "arena/account/hit/cold/threads:0/rep:0",
                      "arena/account/hit/cold/threads:-1/rep:0",
                      "arena/account/hit/cold/threads:8/rep:x",
                      "arena/account/hit/cold/threads:9999999/rep:0",
                      "Arena/account/hit/cold/threads:8/rep:0",
                      "arena/account/hit/cold//threads:8/rep:0");
  CAPTURE(bad);
  CHECK_FALSE(ParseCellName(bad).has_value());
}

TEST_CASE("every name in the contract is spelled once", "[report][schema]") {
  std::set<std::string_view> names;
  for (const auto& c : AllCounters()) CHECK(names.insert(c.name).second);
  for (const auto& k : AllContextKeys()) {
    CHECK(names.insert(k.name).second);
    CHECK(k.name.substr(0, 10) == "flatbench.");
  }
  std::set<std::string_view> backend;
  for (const auto& k : AllBackendContextKeys()) {
    CHECK(backend.insert(k.name).second);
  }
  CHECK(BackendKey("lmdb", kSanityPassed) ==
        "flatbench.backend.lmdb.sanity_passed");
}

TEST_CASE("counters are expected where the contract says", "[report][schema]") {
  CHECK(CounterExpected(kReadsPerS, kKindDevice, kModeCold));
  CHECK(CounterExpected(kReadsPerS, kKindHit, kModeWarm));
  CHECK_FALSE(CounterExpected(kOpenSeconds, kKindDevice, kModeCold));
  CHECK(CounterExpected(kResidentFractionAfterEviction, kKindMissLive,
                        kModeColdLazy));
  CHECK_FALSE(
      CounterExpected(kResidentFractionAfterEviction, kKindHit, kModeWarm));
  CHECK(CounterExpected(kLockedBytes, kKindHit, kModeWarm));
  CHECK_FALSE(CounterExpected(kLockedBytes, kKindHit, kModeCold));
  CHECK(CounterExpected(kIoEfficiency, kKindHit, kModeCold));
  CHECK_FALSE(CounterExpected(kIoEfficiency, kKindMissAbsent, kModeCold));
  CHECK_FALSE(CounterExpected(kIoEfficiency, kKindHit, kModeWarm));
  CHECK(CounterExpected(kDeviceFileBytes, kKindDevice, kModeColdLazy));
  CHECK_FALSE(CounterExpected(kBytesReadPerRead, kKindHit, kModeCold));
}

}  // namespace
}  // namespace flatbench::results
