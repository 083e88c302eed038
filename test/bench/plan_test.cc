// The run's plan (bench/plan.h): each backend's share from its role and
// cost, what the host leaves out, and the estimate's arithmetic.
#include "bench/plan.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

namespace flatbench::bench {
namespace {

using datagen::KeyKind;

PlanInput Input(const std::string& scale,
                const std::vector<std::string>& backends) {
  PlanInput in;
  in.spec = dataset::MakeSpec(scale, 0, 0, dataset::kDefaultSeed).value();
  ScheduleOptions& o = in.schedule;
  o.backends = backends;
  o.modes = {Mode::kWarm, Mode::kCold, Mode::kColdLazy};
  o.tables = {Table::kAccount, Table::kStorage};
  o.kinds = {KeyKind::kHit, KeyKind::kMissAbsent, KeyKind::kMissLiveAccount};
  o.threads = {1, 8, 32};
  o.repetitions = 3;
  o.reads_per_pass = 5000;
  o.device_reads = 5000;
  o.scan = true;
  o.startup = true;
  o.draw_seed = kDefaultDrawSeed;
  in.gated = {"arena", "rocksdb"};
  in.gate_scale = scale == "full";
  for (const auto& b : backends) in.facts[b] = {50 << 20, 4};
  in.drop_caches = false;
  return in;
}

// Steps per (backend, mode, kind of cell: "read" or "op").
std::map<std::string, int> Count(const Plan& p) {
  std::map<std::string, int> n;
  for (const auto& phase : p.phases) {
    for (const auto& s : phase.steps) {
      ++n[s.backend + "/" + ModeName(phase.mode) + "/" +
          (s.cell.op == Op::kRead ? "read" : "op")];
    }
  }
  return n;
}

TEST_CASE("below the gate's scale a gated backend keeps its whole gate matrix",
          "[bench][plan]") {
  auto plan = MakePlan(Input("smoke", {"arena", "rocksdb"}));
  REQUIRE(plan.ok());
  auto n = Count(plan.value());
  // 15 read cells (account hit, miss-absent; storage hit, miss-absent,
  // miss-live; x 3 thread counts) x 3 repetitions in the gate mode.
  CHECK(n["arena/cold/read"] == 45);
  CHECK(n["rocksdb/cold/read"] == 45);
  // Scans (2 tables x 3 threads) and startup once; other modes once.
  CHECK(n["arena/cold/op"] == 7);
  CHECK(n["arena/warm/read"] == 15);
  CHECK(n["arena/cold-lazy/read"] == 15);
  CHECK(plan->notes.empty());
  // At the gate's scale nothing is narrowed.
  auto full = MakePlan(Input("full", {"arena", "rocksdb"}));
  REQUIRE(full.ok());
  CHECK(Count(full.value())["arena/warm/read"] == 45);
}

TEST_CASE(
    "below the gate's scale a gated backend's batches get every "
    "repetition of the gate mode, as its point reads do",
    "[bench][plan][batch]") {
  PlanInput in = Input("smoke", {"arena", "rocksdb"});
  in.schedule.batch = true;
  in.schedule.batch_threads = {1, 2};
  auto plan = MakePlan(in);
  REQUIRE(plan.ok());
  // Batch cells per (backend, mode): 2 tables x 2 thread counts.
  std::map<std::string, int> batches;
  for (const auto& phase : plan->phases) {
    for (const auto& s : phase.steps) {
      if (s.cell.op == Op::kBatch) {
        ++batches[s.backend + "/" + ModeName(phase.mode)];
      }
    }
  }
  CHECK(batches["arena/cold"] == 4 * 3);
  CHECK(batches["rocksdb/cold"] == 4 * 3);
  // Other modes, like their point reads, once.
  CHECK(batches["arena/warm"] == 4);
  CHECK(batches["arena/cold-lazy"] == 4);
}

TEST_CASE("a costly reference row runs what fits its share of the time",
          "[bench][plan]") {
  PlanInput in = Input("smoke", {"arena", "rocksdb", "many-files"});
  in.facts["many-files"] = {1ull << 30, 60'000};  // A file per key.
  auto plan = MakePlan(in);
  REQUIRE(plan.ok());
  double gated = 0, reference = 0;
  for (const auto& r : plan->rows) {
    (r.role == "gated" ? gated : reference) += r.seconds;
  }
  CHECK(reference <= kReferenceTimeShare * gated / 2 + 1e-9);
  CHECK(reference > 0);  // Its row still exists.
  REQUIRE(plan->notes.size() == 1);
  CHECK(plan->notes[0].find("many-files (reference)") == 0);
  CHECK(plan->notes[0].find("--full-reference") != std::string::npos);

  in.reference_full = true;  // The gated share instead.
  auto whole = MakePlan(in);
  REQUIRE(whole.ok());
  CHECK(Count(whole.value())["many-files/cold/read"] == 45);
  CHECK(whole->notes.empty());
}

TEST_CASE("warm mode admits gated backends first, and says what it leaves out",
          "[bench][plan]") {
  PlanInput in = Input("smoke", {"big", "arena", "rocksdb"});
  in.facts["big"] = {300 << 20, 4};
  in.warm_limit = 200 << 20;  // Both gated backends fit, the other not.
  in.reference_full = true;
  auto plan = MakePlan(in);
  REQUIRE(plan.ok());
  auto n = Count(plan.value());
  CHECK(n["arena/warm/read"] == 15);
  CHECK(n["rocksdb/warm/read"] == 15);
  CHECK(n.count("big/warm/read") == 0);
  CHECK(n["big/cold/read"] == 45);
  REQUIRE(plan->notes.size() == 1);
  CHECK(plan->notes[0].find("warm for big") == 0);
}

TEST_CASE(
    "the estimate adds up, and a read variant costs what its backend does",
    "[bench][plan]") {
  auto plan = MakePlan(Input("smoke", {"arena", "arena+other"}));
  REQUIRE(plan.ok());
  double rows = 0;
  uint64_t passes = 0;
  for (const auto& r : plan->rows) {
    rows += r.seconds;
    passes += r.passes;
  }
  size_t steps = 0;
  for (const auto& p : plan->phases) steps += p.steps.size();
  CHECK(passes == steps);
  CHECK(plan->step_seconds.size() == steps);
  // The rows, and each backend's worker start and sanity check.
  REQUIRE(plan->start_seconds.size() == 2);
  double starts = 0;
  for (const auto& [b, s] : plan->start_seconds) {
    CHECK(s > 0);
    starts += s;
  }
  CHECK(rows + starts == Approx(plan->seconds));
  CHECK(plan->start_seconds.at("arena+other") ==
        Approx(plan->start_seconds.at("arena")));
  CHECK(CostOf("arena+other").hit_reads == CostOf("arena").hit_reads);
  CHECK(CostOf("arena+other").open_s == CostOf("arena").open_s);
  // A variant the thresholds do not name is a reference row.
  bool reference = false;
  for (const auto& r : plan->rows) {
    reference =
        reference || (r.backend == "arena+other" && r.role == "reference");
  }
  CHECK(reference);
  const std::string text = FormatPlan(plan.value());
  CHECK(text.find("total") != std::string::npos);
  CHECK(text.find(std::to_string(passes)) != std::string::npos);
}

TEST_CASE(
    "a cold pass costs more threads' worth of storage reads than a warm "
    "one",
    "[bench][plan]") {
  Step s;
  s.cell = {Table::kAccount, KeyKind::kHit, 1, Op::kRead};
  s.reads_per_thread = 1000;
  s.mode = Mode::kCold;
  const BackendCost c;
  const HostCost h;
  const BackendFacts f{1 << 20, 1};
  const dataset::Spec spec = Input("smoke", {}).spec;
  const double cold1 = EstimateStep(s, spec, f, c, h, false);
  s.mode = Mode::kWarm;
  const double warm1 = EstimateStep(s, spec, f, c, h, false);
  CHECK(cold1 > warm1);
  // The same reads over 4 threads: the device serves them at once.
  s.mode = Mode::kCold;
  s.cell.threads = 4;
  s.reads_per_thread = 250;
  CHECK(EstimateStep(s, spec, f, c, h, false) < cold1);
  CHECK(FormatDuration(59) == "59 s");
  CHECK(FormatDuration(460) == "7 min 40 s");
  CHECK(FormatDuration(7500) == "2 h 05 min");
}

TEST_CASE("the ETA starts from the model and follows the steps' own times",
          "[bench][plan]") {
  // 1,000 steps estimated at 1 s each.
  Eta eta(std::vector<double>(1000, 1.0));
  CHECK(eta.LeftSeconds() == Approx(1000));
  // The first step took 40 s, as a pass that follows holding 13 GiB of
  // warm files might if that time were counted: the ETA moves, but by
  // less than a factor of 2, not by 40x.
  eta.Done(0, 40);
  CHECK(eta.LeftSeconds() > 999);
  CHECK(eta.LeftSeconds() < 2 * 999);
  // Steps that keep taking twice their estimate pull the scale to 2.
  for (size_t i = 1; i < 500; ++i) eta.Done(i, 2.0);
  CHECK(eta.Scale() == Approx(2.0).epsilon(0.1));
  CHECK(eta.LeftSeconds() == Approx(1000).epsilon(0.1));
  // An index past the steps changes nothing.
  const double left = eta.LeftSeconds();
  eta.Done(5000, 100);
  CHECK(eta.LeftSeconds() == left);
  // No estimates: nothing left, scale 1.
  Eta none({});
  CHECK(none.LeftSeconds() == 0);
  CHECK(none.Scale() == 1.0);
}

}  // namespace
}  // namespace flatbench::bench
