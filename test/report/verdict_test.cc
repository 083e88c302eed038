// The verdict on constructed results: the design's thresholds, and every
// check at and either side of its bound deciding GO or NO-GO.
#include "report/verdict/verdict.h"

#include <catch2/catch.hpp>

#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using testing::FailedGateNames;
using testing::Judge;
using testing::ResultsBuilder;

TEST_CASE("a complete valid full-scale run that beats every bound is GO",
          "[report][verdict]") {
  Verdict v = Judge(ResultsBuilder().Build());
  CAPTURE(v.reason, FailedGateNames(v));
  CHECK(v.Valid());
  CHECK(v.outcome == Outcome::kGo);
  CHECK(OutcomeExitCode(v.outcome) == 0);
  // 2 hit checks x 2 tables x 3 threads + 1 miss check x 3 miss kinds x 3.
  CHECK(v.checks.size() == 12 + 9);
  for (const auto& c : v.checks) {
    CHECK(c.available);
    CHECK(c.passed);
  }
}

TEST_CASE("the default thresholds are the ones the design fixes",
          "[report][verdict]") {
  Thresholds t = testing::Defaults();
  CHECK(t.gate_mode == "cold");
  CHECK(t.gate_scale == "full");
  CHECK(t.candidate == "arena");
  REQUIRE(t.checks.size() == 3);
  CHECK(t.checks[0].metric == Metric::kHitReadsPerS);
  CHECK(t.checks[0].baseline == "rocksdb");
  CHECK(t.checks[0].bound == 1.8);
  CHECK(t.checks[1].metric == Metric::kHitReadsPerS);
  CHECK(t.checks[1].baseline == "lmdb");
  CHECK(t.checks[1].bound == 0.85);
  CHECK(t.checks[2].metric == Metric::kMissCost);
  CHECK(t.checks[2].baseline == "lmdb");
  CHECK(t.checks[2].bound == 1.2);
  CHECK(t.min_repetitions == 5);
  CHECK(t.max_resident_fraction == 0.01);
  CHECK(t.threads == std::vector<int>{1, 8, 32});
  CHECK(t.cells.at("account") ==
        std::vector<std::string>{"hit", "miss-absent"});
  CHECK(t.cells.at("storage") ==
        std::vector<std::string>{"hit", "miss-absent", "miss-live"});
  CHECK(t.require_release_build);
  CHECK(t.require_asserts_off);
  CHECK(t.require_full_concurrency);
  CHECK(t.require_sanity_passed);
  CHECK(t.min_mean_inflight_share == 0.75);
  CHECK(t.max_device_rate_spread == 1.25);
  CHECK(t.max_device_drift == 1.25);
}

// Sets the candidate's figure so that the one threshold under test sits at
// `offset` relative to its bound (0 = exactly at it), the others passing.
// The repetitions do not vary (jitter 0), so every interval is the ratio
// itself and no check is within noise: this is the bound's own arithmetic.
struct BoundCase {
  const char* name;
  double offset;  // Relative position of the ratio against the bound.
  bool expect_pass;
};

TEST_CASE("arena/rocksdb cold hit reads/s ratio at and around 1.8",
          "[report][verdict][threshold]") {
  auto c = GENERATE(BoundCase{"at", 0.0, true}, BoundCase{"above", 1e-3, true},
                    BoundCase{"below", -1e-3, false});
  CAPTURE(c.name);
  ResultsBuilder b;
  b.jitter = 0;
  b.hit_reads_per_s = {
      {"rocksdb", 10000}, {"arena", 18000 * (1 + c.offset)}, {"lmdb", 18000}};
  Verdict v = Judge(b.Build());
  CAPTURE(v.reason);
  CHECK(v.Valid());
  CHECK(v.outcome == (c.expect_pass ? Outcome::kGo : Outcome::kNoGo));
  for (const auto& check : v.checks) {
    if (check.threshold.baseline == "rocksdb") {
      CHECK(check.ratio == Approx(1.8 * (1 + c.offset)));
      CHECK(check.passed == c.expect_pass);
    } else {
      CHECK(check.passed);
    }
  }
}

TEST_CASE("arena/lmdb cold hit reads/s ratio at and around 0.85",
          "[report][verdict][threshold]") {
  auto c = GENERATE(BoundCase{"at", 0.0, true}, BoundCase{"above", 1e-3, true},
                    BoundCase{"below", -1e-3, false});
  CAPTURE(c.name);
  ResultsBuilder b;
  b.jitter = 0;
  b.hit_reads_per_s = {
      {"rocksdb", 1000}, {"arena", 8500 * (1 + c.offset)}, {"lmdb", 10000}};
  Verdict v = Judge(b.Build());
  CAPTURE(v.reason);
  CHECK(v.Valid());
  CHECK(v.outcome == (c.expect_pass ? Outcome::kGo : Outcome::kNoGo));
  for (const auto& check : v.checks) {
    if (check.threshold.baseline == "lmdb" &&
        check.threshold.metric == Metric::kHitReadsPerS) {
      CHECK(check.ratio == Approx(0.85 * (1 + c.offset)));
      CHECK(check.passed == c.expect_pass);
    } else {
      CHECK(check.passed);
    }
  }
}

TEST_CASE("arena/lmdb cost per miss ratio at and around 1.2",
          "[report][verdict][threshold]") {
  // Cost per miss is threads / reads_per_s, so a cost ratio of 1.2 means
  // the arena does 1/1.2 of LMDB's miss reads/s. offset > 0 is a higher
  // cost ratio: worse, so "above" the bound fails.
  auto c = GENERATE(BoundCase{"at", 0.0, true}, BoundCase{"below", -1e-3, true},
                    BoundCase{"above", 1e-3, false});
  CAPTURE(c.name);
  ResultsBuilder b;
  b.jitter = 0;
  b.miss_reads_per_s = {
      {"rocksdb", 1000}, {"lmdb", 120000}, {"arena", 100000 / (1 + c.offset)}};
  Verdict v = Judge(b.Build());
  CAPTURE(v.reason);
  CHECK(v.Valid());
  CHECK(v.outcome == (c.expect_pass ? Outcome::kGo : Outcome::kNoGo));
  int miss_checks = 0;
  for (const auto& check : v.checks) {
    if (check.threshold.metric == Metric::kMissCost) {
      ++miss_checks;
      CHECK(check.ratio == Approx(1.2 * (1 + c.offset)));
      CHECK(check.passed == c.expect_pass);
      // Thread-seconds per read: threads / (per-thread rate x threads).
      CHECK(check.candidate_value == Approx((1 + c.offset) / 100000));
    } else {
      CHECK(check.passed);
    }
  }
  CHECK(miss_checks == 9);
}

TEST_CASE("one failing cell among many makes a valid run NO-GO",
          "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  // Halve the arena's storage hit reads/s at 32 threads in every rep.
  for (int rep = 0; rep < 5; ++rep) {
    const std::string name =
        "arena/storage/hit/cold/threads:32/rep:" + std::to_string(rep);
    testing::SetRate(
        doc, name, testing::Entry(doc, name)["reads_per_s"].get<double>() / 2);
  }
  Verdict v = Judge(doc);
  CHECK(v.Valid());
  CHECK(v.outcome == Outcome::kNoGo);
  CHECK(OutcomeExitCode(v.outcome) == 1);
  CHECK(v.FailedChecks() == 2);  // vs rocksdb (1.0 < 1.8) and vs lmdb (0.5).
  CHECK(v.reason.find("storage hit at 32 threads") != std::string::npos);
}

TEST_CASE("medians, not means, decide a cell", "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  // One wild repetition (still below the physical bound) does not move
  // the median.
  testing::SetRate(doc, "arena/account/hit/cold/threads:1/rep:4", 1e7);
  Verdict v = Judge(doc);
  CHECK(v.outcome == Outcome::kGo);
  const auto& cell = v.cells.at({"arena", "account", "hit", "cold", 1});
  CHECK(cell.reads_per_s.median == 20000);
  CHECK(cell.reads_per_s.min == Approx(19600));
  CHECK(cell.reads_per_s.max == 1e7);
  SECTION("and a single wild low one does not either") {
    testing::SetRate(doc, "rocksdb/account/hit/cold/threads:1/rep:2", 1.0);
    Verdict w = Judge(doc);
    // rocksdb's median moves to its next rep, 9900: arena is 2.02 x.
    CHECK(w.cells.at({"rocksdb", "account", "hit", "cold", 1})
              .reads_per_s.median == Approx(9900));
    CHECK(w.outcome == Outcome::kGo);
  }
}

}  // namespace
}  // namespace flatbench::report
