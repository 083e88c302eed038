// The verdict on constructed results: each validity gate turning the
// verdict INCONCLUSIVE, and the figures at its edge that still pass.
#include <catch2/catch.hpp>

#include "report/verdict/verdict.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using testing::FailedGateNames;
using testing::GateNamed;
using testing::Judge;
using testing::ResultsBuilder;

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
