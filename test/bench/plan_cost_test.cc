// The bench plan's cost model (bench/plan_cost.h) on a crafted device
// profile, every figure worked by hand; and its calibration from a crafted
// results file of "this host" (bench/plan_calibration.h).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/page_cache.h"
#include "bench/plan.h"
#include "common/results_schema.h"
#include "test/crafted_profile.h"
#include "test/temp_dir.h"

namespace flatbench::bench {
namespace {

using nlohmann::json;
namespace r = results;

// 100,000 accounts and no slots: one table, whose pages the facts set.
dataset::Spec AccountsOnly() {
  return dataset::MakeSpec("custom", 100'000, 0, dataset::kDefaultSeed).value();
}

// The arena, cold account hits at 1 and 8 threads, one repetition of 8,000
// reads and a device cell of 8,000 reads each, evicted by drop_caches, on
// the host of the crafted profile: 4 KiB reads at 15 us at depth 1 and 85
// us at depth 8, 2 cpus. Its account table holds 8,000 pages.
PlanInput CraftedInput() {
  PlanInput in;
  in.spec = AccountsOnly();
  ScheduleOptions& o = in.schedule;
  o.backends = {"arena"};
  o.modes = {Mode::kCold};
  o.tables = {Table::kAccount};
  o.kinds = {datagen::KeyKind::kHit};
  o.threads = {1, 8};
  o.repetitions = 1;
  o.reads_per_pass = 8000;
  o.device_reads = 8000;
  o.draw_seed = kDefaultDrawSeed;
  in.gated = {"arena"};
  in.facts["arena"] = {8000 * 4096, 2};
  in.drop_caches = true;
  in.check_samples = 1000;
  in.host = HostCostFromProfile(
      ParseDeviceProfile(testing::CraftedDeviceProfile(), "crafted").value(),
      HostCost());
  return in;
}

TEST_CASE(
    "a bench plan on a crafted device profile gives the hand-worked "
    "seconds",
    "[bench][plan]") {
  const PlanInput in = CraftedInput();
  const double d1 = 1 / 15e-6, d8 = 8 / 85e-6;  // Reads/s at depth 1 and 8.
  CHECK(in.host.ReadsPerS(1) == Approx(d1));
  CHECK(in.host.ReadsPerS(8) == Approx(d8));
  const BackendCost arena = CostOf("arena");
  // Every cold step: the request (0.003 s), the residency check of its two
  // files before the pass and after the eviction, the eviction (0.16 s),
  // the open (fixed, and per pair for 100,000 pairs).
  const double fixed = 0.003 + 2 * 2 * arena.per_file_s + 0.16 + arena.open_s +
                       arena.open_s_per_pair * 100'000;
  // 8,000 hits over 8,000 pages read 8,000 (1 - 1/e) of them.
  const double pages = 8000 * (1 - std::exp(-1.0));
  // 1 thread: the device cell at depth 1, the pass's pages at depth 1
  // (longer than its CPU, 8,000 x 4 us).
  const double one = fixed + 8000 / d1 + pages / d1;
  // 8 threads: both at depth 8 (the CPU, 8,000 x 4 us over 2 cpus, is
  // shorter again).
  const double eight = fixed + 8000 / d8 + pages / d8;
  CHECK(one == Approx(0.36440).epsilon(1e-4));
  CHECK(eight == Approx(0.30727).epsilon(1e-4));
  // The worker's start: a process start, an open, and 1,000 hits' pages
  // at depth 1 with their and 1,000 misses' CPU (a miss reads no page).
  const double start = arena.probe_s + 8000 * -std::expm1(-1000.0 / 8000) / d1 +
                       arena.open_s + arena.open_s_per_pair * 100'000 +
                       2000 * arena.cpu_read_s;

  auto plan = MakePlan(in);
  REQUIRE(plan.ok());
  REQUIRE(plan->step_seconds.size() == 2);
  CHECK(plan->step_seconds[0] == Approx(one));
  CHECK(plan->step_seconds[1] == Approx(eight));
  CHECK(plan->start_seconds.at("arena") == Approx(start));
  CHECK(plan->seconds == Approx(one + eight + start));
  CHECK(FormatPlan(plan.value()).find("the built-in cost model") !=
        std::string::npos);
}

// A results entry: `kind` "device" or "hit", at pass_order `order`.
json Entry(const std::string& kind, int threads, int rep, double order,
           double start, double reads_per_s, double open) {
  json e = {{"name", "arena/account/" + kind +
                         "/cold/threads:" + std::to_string(threads) +
                         "/rep:" + std::to_string(rep)},
            {"iterations", 8000},
            {std::string(r::kReadsPerS.name), reads_per_s},
            {std::string(r::kPassOrder.name), order},
            {std::string(r::kPassStartS.name), start}};
  if (kind != "device") e[std::string(r::kOpenSeconds.name)] = open;
  return e;
}

// A crafted run of CraftedInput's schedule, twice over (two repetitions),
// on host "h1": every step takes 1 s at 1 thread and 0.5 s at 8, of which
// the device cell, open and pass take 0.9 s and 0.4 s, so 0.1 s is the
// step's own cost; its first step starts 3 s after the run.
json CraftedResults(const std::string& host, const std::string& run_start) {
  json b = json::array();
  double t = 3, order = 0;
  for (int rep = 0; rep < 2; ++rep) {
    // 1 thread: a 0.4 s device cell (20,000/s), a 0.1 s open, a 0.4 s pass.
    b.push_back(Entry("device", 1, rep, order++, t, 20000, 0));
    b.push_back(Entry("hit", 1, rep, order++, t + 0.5, 20000, 0.1));
    t += 1;
    // 8 threads: 0.1 s device cell (80,000/s), 0.1 s open, 0.2 s pass.
    b.push_back(Entry("device", 8, rep, order++, t, 80000, 0));
    b.push_back(Entry("hit", 8, rep, order++, t + 0.2, 40000, 0.1));
    t += 0.5;
  }
  const PlanInput in = CraftedInput();
  json ctx = {{std::string(r::kMachineIdHash.name), host},
              {std::string(r::kDevice.name), "/dev/vda (254:0)"},
              {std::string(r::kEvictMethod.name), "drop_caches"},
              {std::string(r::kSpec.name), in.spec.Canonical()},
              {std::string(r::kReadsPerPass.name), 8000},
              {std::string(r::kDeviceReadsPerPass.name), 8000},
              {std::string(r::kRunStart.name), run_start}};
  return {{"context", ctx}, {"benchmarks", b}};
}

CalibrationTarget Target(const PlanInput& in) {
  CalibrationTarget t;
  t.machine_id_hash = "h1";
  t.device = "/dev/vda (254:0)";
  t.evict = "drop_caches";
  t.spec = in.spec.Canonical();
  t.reads_per_pass = 8000;
  t.device_reads = 8000;
  return t;
}

TEST_CASE("the plan calibrates from this host's newest results and says so",
          "[bench][plan]") {
  testing::TempDir tmp;
  PlanInput in = CraftedInput();
  const std::string older = tmp / "older.json", newer = tmp / "newer.json",
                    other = tmp / "other.json";
  std::ofstream(older) << CraftedResults("h1", "2026-01-01T00:00:00Z");
  std::ofstream(newer) << CraftedResults("h1", "2026-01-02T00:00:00Z");
  std::ofstream(other) << CraftedResults("h2", "2026-01-03T00:00:00Z");
  std::ofstream(tmp / "broken.json") << "{not json";
  auto c = NewestCalibration(
      {older, newer, other, tmp / "broken.json", tmp / "missing.json"},
      Target(in));
  REQUIRE(c.has_value());
  CHECK(c->source == newer);  // The newest of this host's: not h2's.
  // The device cells' median rates per depth.
  REQUIRE(c->device.size() == 2);
  CHECK(c->device[0].depth == 1);
  CHECK(c->device[0].reads_per_s == Approx(20000));
  CHECK(c->device[1].reads_per_s == Approx(80000));
  // No warm step: a cold step's own 0.1 s, less the model's 0.003 s step.
  CHECK_FALSE(c->step_s.has_value());
  REQUIRE(c->evict_s.has_value());
  CHECK(*c->evict_s == Approx(0.097));
  // The same run: each step's time, the last one's unknown (the first
  // repetition's stands for it), and the start before the first step.
  REQUIRE(c->same_run);
  CHECK(c->step_seconds.size() == 2);
  REQUIRE(c->start_s.has_value());
  CHECK(*c->start_s == Approx(3 - 0.097));

  in.calibration = c;
  in.host = Calibrated(*c, in.host);
  CHECK(in.host.ReadsPerS(1) == Approx(20000));
  CHECK(in.host.ReadsPerS(8) == Approx(80000));
  // Depth 32, not measured: the profile's, as depth 8 measured against it.
  CHECK(in.host.ReadsPerS(32) == Approx((32 / 325e-6) * 80000 / (8 / 85e-6)));
  CHECK(in.host.drop_caches_s == Approx(0.097));
  auto plan = MakePlan(in);
  REQUIRE(plan.ok());
  CHECK(plan->steps_measured == 2);
  CHECK(plan->seconds == Approx(1 + 0.5 + (3 - 0.097)));
  const std::string text = FormatPlan(plan.value());
  INFO(text);
  CHECK(text.find("calibrated from " + newer +
                  " (this host's run of 2026-01-02T00:00:00Z): device rates "
                  "at depth 1, 8, an eviction by drop_caches (0.097 s) and "
                  "the measured time of each step it ran") !=
        std::string::npos);
  CHECK(text.find("2 of 2 steps at their measured times") != std::string::npos);

  // Another dataset: the device and eviction still count, the steps' own
  // times do not.
  CalibrationTarget bigger = Target(in);
  bigger.spec = "another";
  auto partial = NewestCalibration({newer}, bigger);
  REQUIRE(partial.has_value());
  CHECK_FALSE(partial->same_run);
  CHECK(partial->step_seconds.empty());
  CHECK(partial->device.size() == 2);
  // Another host's results calibrate nothing.
  CHECK_FALSE(NewestCalibration({other}, Target(in)).has_value());
}

TEST_CASE("a calibrated plan starts each backend as its run recorded it",
          "[bench][plan]") {
  PlanInput in = CraftedInput();
  json doc = CraftedResults("h1", "2026-01-02T00:00:00Z");
  // The run recorded the arena's start (1.25 s) and warm begin (0.5 s).
  doc["context"][r::BackendKey("arena", r::kStartSeconds)] = 1.25;
  doc["context"][r::BackendKey("arena", r::kWarmBeginSeconds)] = 0.5;
  auto c = CalibrationFrom(doc, "run.json", Target(in));
  REQUIRE(c.has_value());
  REQUIRE(c->start_by_backend.count("arena") == 1);
  CHECK(c->start_by_backend.at("arena") == Approx(1.75));
  in.calibration = c;
  in.host = Calibrated(*c, in.host);
  auto plan = MakePlan(in);
  REQUIRE(plan.ok());
  // Its own figures, not the 2.903 s before the first step shared out.
  CHECK(plan->start_seconds.at("arena") == Approx(1.75));
  CHECK(plan->seconds == Approx(1 + 0.5 + 1.75));
  // Another dataset's run: its starts do not apply.
  CalibrationTarget bigger = Target(in);
  bigger.spec = "another";
  auto other = CalibrationFrom(doc, "run.json", bigger);
  REQUIRE(other.has_value());
  CHECK(other->start_by_backend.empty());
}

TEST_CASE("a drop_caches eviction is priced by the inodes it walks",
          "[bench][plan]") {
  // 0.01 s of sync, and 0.13 us for each cached inode.
  CHECK(DropCachesSeconds(0) == Approx(0.01));
  CHECK(DropCachesSeconds(3'370'000) == Approx(0.01 + 0.4381));
  CHECK(DropCachesSeconds(600'000) > DropCachesSeconds(1'000));
  // This host's count: the kernel always caches some inodes.
  const auto inodes = CachedInodes();
  REQUIRE(inodes.has_value());
  CHECK(*inodes > 0);
}

}  // namespace
}  // namespace flatbench::bench
