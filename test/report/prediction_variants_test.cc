// The prediction report of a sweep that measured the candidate's cached
// read path (arena+cache) beside it, as `flatbench sweep` does by default:
// its checks get rows and charts of their own, named for the read path, and
// the headline's counts stay the candidate's.
#include <catch2/catch.hpp>
#include <string>

#include "common/results_schema.h"
#include "report/document/markdown.h"
#include "report/prediction/prediction.h"
#include "test/report/judge.h"

namespace flatbench::report {
namespace {

namespace r = results;

Pass HitPass(const std::string& backend, int rep, double rate) {
  Pass p;
  p.cell = {backend, "account", "hit", "cold", 1};
  p.rep = rep;
  p.counters[r::kReadsPerS.name] = rate;
  p.counters[r::kBytesReadPerRead.name] = 4096;
  return p;
}

// Two sizes; at each, account hits at 1 thread, two repetitions: RocksDB
// at 10,000 reads/s, the arena at 15,000 and 12,000 (1.5 and 1.2 times
// RocksDB), arena+cache at 25,000 and 22,000 (2.5 and 2.2 times).
SweepInput Sweep() {
  SweepInput in;
  in.file = "sweep.json";
  in.slots_per_account = 4;
  for (uint64_t accounts : {1000000ULL, 10000000ULL}) {
    SweepSize s;
    s.accounts = accounts;
    s.pairs = accounts * 5;
    s.spec = "crafted";
    const bool small = accounts == 1000000;
    for (int rep = 0; rep < 2; ++rep) {
      s.results.passes.push_back(HitPass("rocksdb", rep, 10000));
      s.results.passes.push_back(HitPass("arena", rep, small ? 15000 : 12000));
      s.results.passes.push_back(
          HitPass("arena+cache", rep, small ? 25000 : 22000));
    }
    in.sizes.push_back(std::move(s));
  }
  return in;
}

TEST_CASE("the prediction report shows the cached read path's checks",
          "[report][prediction]") {
  const SweepInput sweep = Sweep();
  const Thresholds th = testing::ArenaOverRocksDbHits({1}, {"account"});
  const auto checks = PredictChecks(sweep, th, 1.5e9);
  REQUIRE(checks.size() == 2);
  CHECK(checks[0].read_path == "arena");
  CHECK(checks[1].read_path == "arena+cache");
  CHECK(checks[1].threshold.name == "arena+cache/rocksdb cold hit reads/s");
  REQUIRE(checks[1].points.size() == 2);
  CHECK(checks[1].points[0].ratio == Approx(2.5));
  CHECK(checks[1].points[1].ratio == Approx(2.2));
  CHECK(checks[1].fitted);

  const std::string md = RenderMarkdown(BuildPredictionDocument(sweep, th));
  INFO(md);
  // A row per read path in the trend table, each with both sizes.
  CHECK(
      md.find("| arena/rocksdb cold hit reads/s | account hit 1t | 1.500 [") !=
      std::string::npos);
  CHECK(md.find("| arena+cache/rocksdb cold hit reads/s | account hit 1t | "
                "2.500 [") != std::string::npos);
  // A chart of its own.
  CHECK(md.find("arena+cache/rocksdb cold hit reads/s: account hit against "
                "dataset size") != std::string::npos);
  // The headline counts the candidate's one cell, and names the other
  // read path.
  CHECK(md.find("Of 1 gated cells with a trend") != std::string::npos);
  CHECK(md.find("These counts are arena's; its other read paths measured "
                "(arena+cache)") != std::string::npos);
}

}  // namespace
}  // namespace flatbench::report
