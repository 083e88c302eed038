// Every read path of the arena judged, NO-GO on a clear failure, and each
// hit check's device ceiling and own ceiling, on constructed results whose
// figures give the expected answers by hand.
#include <catch2/catch.hpp>

#include "report/document/document.h"
#include "report/document/html.h"
#include "report/document/markdown.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using testing::Entry;
using testing::Judge;
using testing::ResultsBuilder;

// The builder with read paths of the arena beside the mmap reader, each
// with its own hit rate (single thread; the builder scales by threads).
ResultsBuilder WithReadPaths(double mmap, double cache, double pread) {
  ResultsBuilder b;
  b.backends = {"arena", "arena+cache", "arena+pread", "rocksdb", "lmdb"};
  b.hit_reads_per_s["arena"] = mmap;
  b.hit_reads_per_s["arena+cache"] = cache;
  b.hit_reads_per_s["arena+pread"] = pread;
  for (const char* p : {"arena+cache", "arena+pread"}) {
    b.miss_reads_per_s[p] = b.miss_reads_per_s["arena"];
    b.device_reads_per_s[p] = b.device_reads_per_s["arena"];
  }
  return b;
}

TEST_CASE("a valid run with one clear failure is NO-GO even with noise",
          "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  // Account hits at 1 thread: 1.2 x RocksDB, clear of 1.8.
  for (int rep = 0; rep < 5; ++rep) {
    const std::string suffix = "/threads:1/rep:" + std::to_string(rep);
    testing::SetRate(doc, "arena/account/hit/cold" + suffix,
                     1.2 * 10000 * (1 + 0.01 * (rep - 2)));
  }
  // Storage hits at 8 threads: exactly 1.8 x RocksDB per repetition, so
  // the interval holds the bound.
  bool noisy_too = false;
  SECTION("and another check within noise") {
    noisy_too = true;
    for (int rep = 0; rep < 5; ++rep) {
      const std::string suffix = "/threads:8/rep:" + std::to_string(rep);
      const double rocks =
          Entry(doc, "rocksdb/storage/hit/cold" + suffix)["reads_per_s"];
      testing::SetRate(doc, "arena/storage/hit/cold" + suffix, 1.8 * rocks);
    }
  }
  SECTION("alone") {}
  Verdict v = Judge(doc);
  CAPTURE(v.reason);
  CHECK(v.Valid());
  CHECK(v.outcome == Outcome::kNoGo);
  CHECK(OutcomeExitCode(v.outcome) == 1);
  // Against RocksDB (1.2 < 1.8) and LMDB (0.6 < 0.85).
  REQUIRE(v.ClearlyFailedChecks().size() == 2);
  for (const RatioCheck* c : v.ClearlyFailedChecks()) {
    CHECK(c->candidate.table == "account");
    CHECK(c->candidate.threads == 1);
  }
  CHECK(v.NoisyChecks().size() == (noisy_too ? 1u : 0u));
  if (noisy_too) CHECK(v.reason.find("within noise") != std::string::npos);
}

TEST_CASE("a check within noise with none failing clearly stays INCONCLUSIVE",
          "[report][verdict]") {
  auto doc = ResultsBuilder().Build();
  for (int rep = 0; rep < 5; ++rep) {
    const std::string suffix = "/threads:8/rep:" + std::to_string(rep);
    const double rocks =
        Entry(doc, "rocksdb/storage/hit/cold" + suffix)["reads_per_s"];
    // Just under the bound at the median: fails, but not clearly.
    testing::SetRate(doc, "arena/storage/hit/cold" + suffix, 1.79 * rocks);
  }
  Verdict v = Judge(doc);
  CHECK(v.Valid());
  CHECK(v.FailedChecks() == 1);
  CHECK(v.ClearlyFailedChecks().empty());
  CHECK(v.outcome == Outcome::kInconclusive);
}

TEST_CASE("every read path of the arena gets its own verdict line",
          "[report][verdict]") {
  SECTION("the mmap reader fails, the cached path passes") {
    Verdict v = Judge(WithReadPaths(15000, 30000, 25000).Build());
    CAPTURE(v.reason);
    // The mmap reader sets the outcome.
    CHECK(v.outcome == Outcome::kNoGo);
    REQUIRE(v.variants.size() == 2);
    CHECK(v.variants[0].thresholds.candidate == "arena+cache");
    CHECK(v.variants[1].thresholds.candidate == "arena+pread");
    for (const auto& variant : v.variants) {
      CAPTURE(variant.thresholds.candidate, variant.reason);
      CHECK(variant.Valid());
      CHECK(variant.outcome == Outcome::kGo);
      CHECK(variant.variants.empty());
      CHECK(variant.checks.size() == v.checks.size());
      CHECK(variant.checks[0].threshold.name.rfind(
                variant.thresholds.candidate + "/rocksdb", 0) == 0);
    }
    std::vector<std::string> lines = VerdictLines(v);
    REQUIRE(lines.size() == 3);
    // 1.5 x RocksDB and 0.75 x LMDB: every hit check fails.
    CHECK(lines[0].rfind("arena (mmap): NO-GO, 12 of 21 checks fail", 0) == 0);
    CHECK(lines[1].rfind("arena+cache: GO, all 21 checks pass", 0) == 0);
    CHECK(lines[2].rfind("arena+pread: GO", 0) == 0);
  }
  SECTION("the mmap reader passes, a read path fails") {
    Verdict v = Judge(WithReadPaths(20000, 30000, 15000).Build());
    CHECK(v.outcome == Outcome::kGo);
    REQUIRE(v.variants.size() == 2);
    CHECK(v.variants[0].outcome == Outcome::kGo);
    CHECK(v.variants[1].outcome == Outcome::kNoGo);
    CHECK(VerdictLines(v)[2].rfind("arena+pread: NO-GO", 0) == 0);
  }
  SECTION("a read path with missing cells is INCONCLUSIVE on its own") {
    auto doc = WithReadPaths(20000, 30000, 25000).Build();
    testing::RemoveEntries(doc, "arena+cache/storage/hit/cold/threads:32/");
    Verdict v = Judge(doc);
    CHECK(v.outcome == Outcome::kGo);
    CHECK(v.variants[0].outcome == Outcome::kInconclusive);
    CHECK(testing::FailedGateNames(v.variants[0]) ==
          std::vector<std::string>{"required cells present"});
    // Its checks of the missing cell against RocksDB and LMDB.
    CHECK(VerdictLines(v)[1] ==
          "arena+cache: INCONCLUSIVE, not valid evidence (failed gates: "
          "required cells present); provisionally 0 of 21 checks would fail, "
          "2 have no figure");
    CHECK(v.variants[1].outcome == Outcome::kGo);
  }
  SECTION("without read paths there is one line") {
    Verdict v = Judge(ResultsBuilder().Build());
    CHECK(v.variants.empty());
    CHECK(VerdictLines(v) ==
          std::vector<std::string>{
              "arena (mmap): GO, all 21 checks pass clear of their bounds"});
  }
}

TEST_CASE("the report gives each read path a line and a ratio table",
          "[report][render]") {
  auto b = WithReadPaths(15000, 30000, 25000);
  Verdict v = Judge(b.Build());
  std::string md = RenderMarkdown(BuildDocument(v, testing::Parse(b.Build())));
  CHECK(md.find("## Verdict: NO-GO") != std::string::npos);
  CHECK(md.find("- arena (mmap): NO-GO") != std::string::npos);
  CHECK(md.find("- arena+cache: GO") != std::string::npos);
  CHECK(md.find("Read path arena+pread, judged by the same thresholds (GO)") !=
        std::string::npos);
  // Judged read paths are not reference rows.
  CHECK(md.find("arena+cache (reference)") == std::string::npos);
  CHECK(md.find("| arena+cache |") != std::string::npos);
  // The HTML gives the same lines as list items.
  std::string html = RenderHtml(BuildDocument(v, testing::Parse(b.Build())));
  CHECK(html.find("<li>arena (mmap)&#58; NO-GO") != std::string::npos);
  CHECK(html.find("<li>arena+cache&#58; GO") != std::string::npos);
}

// One thread count's ceilings against the hand's figures: the one-page
// format's pages per hit n1, and the device and own ceilings per thread.
void CheckCeilingsByHand(const Verdict& v, int threads, double n1,
                         double device, double best) {
  CAPTURE(threads);
  const RatioCheck& rocks = testing::HitCheck(v, "rocksdb", "account", threads);
  REQUIRE(rocks.ceiling.available);
  CHECK(rocks.ceiling.cpu_per_read_s == Approx(5.078125e-6));
  CHECK(rocks.ceiling.device_rate == Approx(25000.0 * threads));
  CHECK(rocks.ceiling.table_pages == 17089843);
  CHECK(rocks.ceiling.reads_per_pass == 10000.0 * threads);
  CHECK(rocks.ceiling.measured_pages == Approx(1.123046875));
  CHECK(rocks.ceiling.pages_per_hit == Approx(n1).epsilon(1e-8));
  const CeilingFigure& d = rocks.ceiling.device;
  CHECK(d.rate == Approx(device * threads).epsilon(1e-6));
  CHECK(d.ratio == Approx(device / 10000).epsilon(1e-6));
  CHECK(d.interval.low == Approx(device / 10000).epsilon(1e-6));
  CHECK(d.interval.high == Approx(device / 10000).epsilon(1e-6));
  const CeilingFigure& own = rocks.ceiling.own;
  CHECK(own.rate == Approx(best * threads).epsilon(1e-6));
  CHECK(own.ratio == Approx(best / 10000).epsilon(1e-6));
  CHECK(own.interval.low == Approx(best / 10000).epsilon(1e-6));
  CHECK(own.interval.high == Approx(best / 10000).epsilon(1e-6));
  CHECK_FALSE(rocks.ceiling.beyond);  // 2.50 is above 1.8.
  CHECK(rocks.ceiling.held);          // The arena's 2.0 lies below.
  const RatioCheck& lmdb = testing::HitCheck(v, "lmdb", "storage", threads);
  CHECK(lmdb.ceiling.device.ratio == Approx(device / 20000).epsilon(1e-6));
  CHECK(lmdb.ceiling.own.ratio == Approx(best / 20000).epsilon(1e-6));
  CHECK_FALSE(lmdb.ceiling.beyond);
}

TEST_CASE("the two ceilings of a hit check, by hand", "[report][ceiling]") {
  ResultsBuilder b;
  b.jitter = 0;  // Every repetition at the median: the interval is a point.
  // Builder figures per single thread: arena 20,000 hits/s, device 25,000
  // 4 KiB reads/s, RocksDB 10,000, LMDB 20,000; cold hits read 4,600 bytes
  // and take 1.1 major faults per read.
  SECTION("CPU time per read from the candidate's own figures") {
    Verdict v = Judge(b.Build());
    // Requests per read max(1.1, 4600/4096) = 1.123046875; one read waits
    // T / D = 40 us; the arena spends T / R = 50 us per read, so
    // c = 50 - 1.123046875 x 40 = 5.078125 us.
    //
    // Full scale: the arena's account device cell spans P = 70 GB / 4 KiB
    // = 17,089,843 pages, and a pass reads r = 10,000 x T keys, so a
    // one-page format reads n1 = P (1 - e^(-r/P)) / r pages per hit:
    // 0.999707486 at 1 thread, 0.997663076 at 8, 0.990695876 at 32 (just
    // under one: a pass revisits a few pages), below the measured 1.123.
    // The device ceiling, R* = T / (n1 x T / D) = D / n1: 25,007.31,
    // 25,058.56 and 25,234.79 reads/s per thread. The own ceiling,
    // R* = T / (n1 x 40 us + 5.078125 us): 22,189.47, 22,229.81 and
    // 22,368.38 reads/s per thread.
    const std::map<int, std::tuple<double, double, double>> hand = {
        {1, {0.999707486, 25007.31, 22189.47}},
        {8, {0.997663076, 25058.56, 22229.81}},
        {32, {0.990695876, 25234.79, 22368.38}}};
    for (const auto& [threads, figures] : hand) {
      const auto [n1, device, best] = figures;
      CheckCeilingsByHand(v, threads, n1, device, best);
    }
    CHECK(v.BeyondCeiling().empty());
    CHECK(v.CeilingNotHeld().empty());
  }
}

TEST_CASE("the two ceilings of a hit check at their edges",
          "[report][ceiling]") {
  ResultsBuilder b;
  b.jitter = 0;  // Every repetition at the median: the interval is a point.
  SECTION("waits longer than the time per read leave no CPU time") {
    auto doc = b.Build();
    testing::SetCounter(doc, "arena/account/hit/cold/", "bytes_read_per_read",
                        8192);
    Verdict v = Judge(doc);
    // 2 x 40 us of waits exceed the 50 us per read: c = 0, so the own
    // ceiling is the device ceiling, D / n1 (n1 = 0.997663076 at 8
    // threads, as above).
    const RatioCheck& c = testing::HitCheck(v, "rocksdb", "account", 8);
    CHECK(c.ceiling.cpu_per_read_s == 0);
    CHECK(c.ceiling.own.ratio ==
          Approx(25000.0 / 0.997663076 / 10000).epsilon(1e-8));
    CHECK(c.ceiling.device.ratio == Approx(c.ceiling.own.ratio));
  }
  SECTION("a bound above the device ceiling is beyond the device's limit") {
    // RocksDB as fast as the arena: a one-page format reaches
    // 25,007.31 / 20,000 = 1.250 x at 1 thread, short of 1.8.
    b.hit_reads_per_s["rocksdb"] = 20000;
    Verdict v = Judge(b.Build());
    CAPTURE(v.reason);
    CHECK(v.outcome == Outcome::kNoGo);
    const RatioCheck& c = testing::HitCheck(v, "rocksdb", "storage", 1);
    CHECK(c.ceiling.device.ratio == Approx(25007.31 / 20000).epsilon(1e-6));
    CHECK(c.ceiling.beyond);
    // Every arena/rocksdb hit check, and none against LMDB (0.85 < 1.250,
    // 1.253 and 1.262).
    CHECK(v.BeyondCeiling().size() == 6);
    for (const RatioCheck* x : v.BeyondCeiling()) {
      CHECK(x->baseline.backend == "rocksdb");
    }
    CHECK(v.reason.find("6 of 21 checks are beyond this device's limit for "
                        "any one-page format") != std::string::npos);
    CHECK(v.reason.find("device ceiling 1.250 [1.250, 1.250]") !=
          std::string::npos);
    CHECK(VerdictLines(v)[0].find("6 checks are beyond this device's limit "
                                  "for any one-page format") !=
          std::string::npos);
    std::string md =
        RenderMarkdown(BuildDocument(v, testing::Parse(b.Build())));
    CHECK(md.find("1.250 [1.250, 1.250] | 1.109 [1.109, 1.109] | **FAIL; "
                  "beyond this device's limit for any one-page format") !=
          std::string::npos);
  }
  SECTION("a read path without device cells uses the arena's") {
    auto rp = WithReadPaths(20000, 20000, 20000);
    rp.jitter = 0;
    auto doc = rp.Build();
    testing::RemoveEntries(doc, "arena+cache/account/device/");
    Verdict v = Judge(doc);
    REQUIRE(v.variants.size() == 2);
    const RatioCheck& c =
        testing::HitCheck(v.variants[0], "rocksdb", "account", 1);
    REQUIRE(c.ceiling.available);
    CHECK(c.ceiling.device.ratio == Approx(25007.31 / 10000).epsilon(1e-6));
    CHECK(c.ceiling.own.ratio == Approx(22189.47 / 10000).epsilon(1e-6));
  }
  SECTION("miss checks have no device ceiling") {
    Verdict v = Judge(b.Build());
    for (const auto& c : v.checks) {
      if (c.threshold.metric != Metric::kMissCost) continue;
      CHECK_FALSE(c.ceiling.available);
      CHECK_FALSE(c.ceiling.beyond);
      CHECK(c.ceiling.why_not.find("miss") != std::string::npos);
    }
  }
}

TEST_CASE("a check that passes is never beyond its ceiling",
          "[report][ceiling]") {
  ResultsBuilder b;
  b.jitter = 0;
  // The arena at 2 x RocksDB on files whose device rate allows only
  // 25,000 / 0.999707486 / 20,000 = 1.250 x: its 1.123 pages per hit wait
  // 44.9 us, longer than its 25 us per read, so its reads were served
  // faster than the device cell's. The check passes: not beyond, and the
  // device ceiling did not hold.
  b.hit_reads_per_s = {{"arena", 40000}, {"rocksdb", 20000}, {"lmdb", 20000}};
  Verdict v = Judge(b.Build());
  const RatioCheck& c = testing::HitCheck(v, "rocksdb", "account", 1);
  CHECK(c.passed);
  REQUIRE(c.ceiling.available);
  CHECK(c.ceiling.device.ratio == Approx(25000 / 0.999707486 / 20000));
  CHECK(c.ceiling.device.interval.high < 1.8);
  CHECK_FALSE(c.ceiling.beyond);
  CHECK_FALSE(c.ceiling.held);
}

TEST_CASE("the ceiling's interval decides beyond, not its median",
          "[report][ceiling]") {
  ResultsBuilder b;
  b.jitter = 0.05;  // Repetitions spread ±10%.
  // The median device ceiling just below 1.8 (R* 25,007.3 over RocksDB
  // 13,950: 1.793), the interval reaching above it: not marked beyond.
  b.hit_reads_per_s["rocksdb"] = 13950;
  Verdict v = Judge(b.Build());
  const RatioCheck& c = testing::HitCheck(v, "rocksdb", "account", 1);
  REQUIRE(c.ceiling.available);
  CHECK(c.ceiling.device.ratio < 1.8);
  CHECK(c.ceiling.device.interval.high > 1.8);
  CHECK_FALSE(c.ceiling.beyond);
}

}  // namespace
}  // namespace flatbench::report
