// The verdict on constructed results: every threshold at and either side of
// its bound, and each validity gate turning the verdict INCONCLUSIVE.
#include "report/verdict/verdict.h"

#include <catch2/catch.hpp>

#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using testing::FailedGateNames;
using testing::GateNamed;
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

TEST_CASE("a missing cell makes the run INCONCLUSIVE", "[report][verdict]") {
  auto prefix = GENERATE(
      as<std::string>{}, "lmdb/storage/miss-live/cold/threads:8/",
      "arena/account/hit/cold/threads:32/", "rocksdb/storage/hit/cold/");
  CAPTURE(prefix);
  auto doc = ResultsBuilder().Build();
  REQUIRE(testing::RemoveEntries(doc, prefix) > 0);
  Verdict v = Judge(doc);
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(OutcomeExitCode(v.outcome) == 2);
  CHECK(FailedGateNames(v) ==
        std::vector<std::string>{"required cells present"});
  const Gate& g = GateNamed(v, "required cells present");
  REQUIRE_FALSE(g.details.empty());
  CHECK(g.details.front().find(prefix.substr(0, prefix.size() - 1)) !=
        std::string::npos);
  // The ratio that needs the missing cell is unavailable, not passed.
  bool any_unavailable = false;
  for (const auto& c : v.checks) any_unavailable |= !c.available;
  CHECK(any_unavailable);
}

TEST_CASE("a missing backend makes the run INCONCLUSIVE", "[report][verdict]") {
  ResultsBuilder b;
  b.backends = {"arena", "rocksdb"};
  Verdict v = Judge(b.Build());
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK_FALSE(GateNamed(v, "required cells present").passed);
}

TEST_CASE("an unverified eviction makes the run INCONCLUSIVE",
          "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  SECTION("eviction_verified = 0 in one pass") {
    testing::Entry(
        doc, "rocksdb/storage/hit/cold/threads:8/rep:3")["eviction_verified"] =
        0;
  }
  SECTION("resident fraction after eviction above the bound in one pass") {
    testing::Entry(doc, "arena/account/miss-absent/cold/threads:1/rep:0")
        ["resident_fraction_after_eviction"] = 0.0101;
  }
  Verdict v = Judge(doc);
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(FailedGateNames(v) == std::vector<std::string>{"eviction verified"});
  CHECK(GateNamed(v, "eviction verified").details.size() == 1);
}

TEST_CASE("a resident fraction exactly at the bound passes",
          "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  testing::SetCounter(doc, "arena/", "resident_fraction_after_eviction", 0.01);
  CHECK(Judge(doc).outcome == Outcome::kGo);
}

TEST_CASE("an unverified eviction outside the gate mode does not matter",
          "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  testing::SetCounter(doc, "arena/account/hit/cold-lazy/", "eviction_verified",
                      0);
  CHECK(Judge(doc).outcome == Outcome::kGo);
}

TEST_CASE("short concurrency makes the run INCONCLUSIVE", "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  SECTION("a storage-bound pass averaging under 0.75 x threads in flight") {
    auto& e = testing::Entry(doc, "lmdb/account/hit/cold/threads:32/rep:1");
    e["mean_inflight"] = 23.9;  // 0.747 x 32, though the peak reached 32.
  }
  SECTION("a CPU-bound pass with more threads than the host has") {
    auto& e =
        testing::Entry(doc, "arena/storage/miss-live/cold/threads:32/rep:2");
    e["storage_bound"] = 0;
    e["bytes_read_per_read"] = 0;
    e["major_faults_per_read"] = 0;
    // A 16-thread host: the host gate fails as well, and the concurrency
    // gate names the CPU-bound pass.
    doc["context"]["flatbench.env.hardware_threads"] = 16;
  }
  Verdict v = Judge(doc);
  CHECK(v.outcome == Outcome::kInconclusive);
  CAPTURE(GateNamed(v, "concurrency").details);
  auto failed = FailedGateNames(v);
  CHECK(std::find(failed.begin(), failed.end(), "concurrency") != failed.end());
}

TEST_CASE("a device cell short of concurrency does not fail the gate",
          "[report][verdict]") {
  // Device cells are the reference the storage gates read, not gated
  // cells: a short one cannot make the concurrency gate fail.
  auto doc = ResultsBuilder().Build();
  auto& e = testing::Entry(doc, "lmdb/account/device/cold/threads:32/rep:1");
  e["mean_inflight"] = 12.0;
  Verdict v = Judge(doc);
  CAPTURE(v.reason);
  auto failed = FailedGateNames(v);
  CHECK(std::find(failed.begin(), failed.end(), "concurrency") == failed.end());
}

TEST_CASE("the mean in flight exactly at 0.75 x threads passes",
          "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  for (auto& e : doc["benchmarks"]) {
    e["mean_inflight"] = 0.75 * e["threads"].get<double>();
  }
  Verdict v = Judge(doc);
  CAPTURE(v.reason);
  CHECK(v.outcome == Outcome::kGo);
}

TEST_CASE("a debug build or asserts on make the run INCONCLUSIVE",
          "[report][verdict]") {
  ResultsBuilder b;
  std::string gate;
  SECTION("debug build") {
    b.build_type = "debug";
    gate = "release build";
  }
  SECTION("asserts on") {
    b.asserts_on = true;
    gate = "asserts off";
  }
  Verdict v = Judge(b.Build());
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(FailedGateNames(v) == std::vector<std::string>{gate});
  CHECK(v.provisional == Outcome::kGo);
}

TEST_CASE("too few repetitions make the run INCONCLUSIVE",
          "[report][verdict]") {
  SECTION("every cell has 4") {
    ResultsBuilder b;
    b.repetitions = 4;
    Verdict v = Judge(b.Build());
    CHECK(v.outcome == Outcome::kInconclusive);
    CHECK(FailedGateNames(v) == std::vector<std::string>{"repetitions"});
  }
  SECTION("one cell lost a repetition") {
    auto doc = ResultsBuilder().Build();
    REQUIRE(testing::RemoveEntries(
                doc, "rocksdb/account/miss-absent/cold/threads:1/rep:4") == 1);
    Verdict v = Judge(doc);
    CHECK(v.outcome == Outcome::kInconclusive);
    CHECK(FailedGateNames(v) == std::vector<std::string>{"repetitions"});
  }
  SECTION("exactly the minimum passes") {
    ResultsBuilder b;
    b.repetitions = 5;
    CHECK(Judge(b.Build()).outcome == Outcome::kGo);
  }
}

TEST_CASE("a failed sanity check makes the run INCONCLUSIVE",
          "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  doc["context"]["flatbench.backend.lmdb.sanity_passed"] = false;
  doc["context"]["flatbench.backend.lmdb.sanity_error"] =
      "storage key 00ff... returned wrong bytes";
  Verdict v = Judge(doc);
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(FailedGateNames(v) == std::vector<std::string>{"sanity checks passed"});
  CHECK(GateNamed(v, "sanity checks passed").figure.find("wrong bytes") !=
        std::string::npos);
}

TEST_CASE("a pass that reported an error makes the run INCONCLUSIVE",
          "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  auto& e = testing::Entry(doc, "arena/account/hit/cold/threads:8/rep:0");
  e = {{"name", e["name"]},
       {"run_type", "iteration"},
       {"error_occurred", true},
       {"error_message", "open failed"}};
  Verdict v = Judge(doc);
  CHECK(v.outcome == Outcome::kInconclusive);
  // The cell is left with four good passes.
  CHECK(FailedGateNames(v) ==
        std::vector<std::string>{"repetitions", "passes completed"});
}

TEST_CASE("a smoke-scale run is INCONCLUSIVE with every ratio computed",
          "[report][verdict]") {
  ResultsBuilder b;
  b.scale = "smoke";
  b.spec = "accounts=100000 slots_per_account=5 seed=42";
  b.accounts = 100000;
  b.slots_per_account = 5;
  SECTION("ratios that would pass") {
    Verdict v = Judge(b.Build());
    CHECK(v.outcome == Outcome::kInconclusive);
    CHECK(v.provisional == Outcome::kGo);
    CHECK(FailedGateNames(v) == std::vector<std::string>{"gate scale"});
    CHECK(v.checks.size() == 21);
    for (const auto& c : v.checks) CHECK(c.available);
    CHECK(v.reason.find("gate scale") != std::string::npos);
  }
  SECTION("ratios that would fail are still reported as failing") {
    b.hit_reads_per_s["arena"] = 5000;
    Verdict v = Judge(b.Build());
    CHECK(v.outcome == Outcome::kInconclusive);
    CHECK(v.provisional == Outcome::kNoGo);
    CHECK(v.FailedChecks() == 12);
    CHECK(v.reason.find("12 of 21 ratio checks would fail") !=
          std::string::npos);
    CHECK(v.reason.find("have no figure") == std::string::npos);
  }
  SECTION("checks without a figure are not counted as failing") {
    b.backends = {"arena", "lmdb"};
    Verdict v = Judge(b.Build());
    CHECK(v.outcome == Outcome::kInconclusive);
    int missing = 0;
    for (const auto& c : v.checks) missing += c.available ? 0 : 1;
    REQUIRE(missing > 0);
    CAPTURE(v.reason);
    CHECK(v.reason.find("0 of 21 ratio checks would fail, " +
                        std::to_string(missing) + " have no figure (") !=
          std::string::npos);
    CHECK(v.reason.find("would fail (") == std::string::npos);
  }
}

TEST_CASE("several failing gates are all named", "[report][verdict]") {
  ResultsBuilder b;
  b.scale = "medium";
  b.build_type = "debugoptimized";
  b.repetitions = 3;
  Verdict v = Judge(b.Build());
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(FailedGateNames(v) ==
        std::vector<std::string>{"gate scale", "release build", "repetitions"});
  for (const char* name : {"gate scale", "release build", "repetitions"}) {
    CHECK(v.reason.find(name) != std::string::npos);
  }
}

TEST_CASE("without device cells the storage gates cannot pass",
          "[report][verdict]") {
  ResultsBuilder b;
  b.device_cells = false;
  Verdict v = Judge(b.Build());
  CHECK(v.outcome == Outcome::kInconclusive);
  CHECK(FailedGateNames(v) ==
        std::vector<std::string>{"storage uniformity", "device drift"});
  // Said as not measured, not as a spread of 1 blamed on a host cache.
  for (const char* name : {"storage uniformity", "device drift"}) {
    CAPTURE(name);
    const Gate& g = GateNamed(v, name);
    CHECK(g.figure.rfind("not measured", 0) == 0);
    CHECK(g.figure.find("recently written") == std::string::npos);
  }
}

}  // namespace
}  // namespace flatbench::report
