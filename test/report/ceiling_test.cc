// A hit check's two ceilings, the device's and the arena's own, and the two
// figures that set a cold pass against its own files' device rate, on
// constructed results whose figures are worked by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "common/results_schema.h"
#include "report/document/document.h"
#include "report/document/markdown.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using testing::HitCheck;
using testing::Judge;
using testing::ResultsBuilder;

// Builder figures per single thread (results_builder.h): arena 20,000
// hits/s, its device cells 25,000 4 KiB reads/s (one read waits 40 us),
// RocksDB 10,000, LMDB 20,000; cold hits read 4,600 bytes and take 1.1
// major faults per read. At full scale a 1-thread pass over the account
// table reads n1 = 0.999707486 pages per hit (read_path_test.cc).
constexpr double kN1 = 0.999707486;

// The arena's account hits at 1 thread read `pages` pages per hit, spend
// `cpu_us` of CPU per read and take `us_per_read` each.
nlohmann::json ArenaHits(const ResultsBuilder& b, double pages, double cpu_us,
                         double us_per_read) {
  auto doc = b.Build();
  const std::string hit = "arena/account/hit/cold/threads:1/";
  testing::SetCounter(doc, hit, "major_faults_per_read", pages);
  testing::SetCounter(doc, hit, "bytes_read_per_read", pages * 4096);
  testing::SetCounter(doc, hit, "cpu_ns_per_read", cpu_us * 1000);
  testing::SetRate(doc, hit, 1e6 / us_per_read);
  return doc;
}

// One page per hit, `cpu_us` of CPU per read beside the 40 us wait: 1 /
// (40 + cpu_us) us per read.
nlohmann::json OnePagePerHit(const ResultsBuilder& b, double cpu_us) {
  return ArenaHits(b, 1, cpu_us, 40 + cpu_us);
}

const CellStats& Cell(const Verdict& v, const std::string& backend,
                      const std::string& kind, int threads) {
  return v.cells.at({backend, "account", kind, "cold", threads});
}

TEST_CASE("an arena heavy on CPU is not beyond the device's limit",
          "[report][ceiling]") {
  ResultsBuilder b;
  b.jitter = 0;
  // The same device, the arena at 10 us and at twice that, 20 us, of CPU
  // per read: 20,000 and 16,666.67 hits/s, 2.000 and 1.667 x RocksDB.
  const Verdict lean = Judge(OnePagePerHit(b, 10));
  const Verdict heavy = Judge(OnePagePerHit(b, 20));
  const RatioCheck& l = HitCheck(lean, "rocksdb", "account", 1);
  const RatioCheck& h = HitCheck(heavy, "rocksdb", "account", 1);
  CHECK(l.ratio == Approx(2.0));
  CHECK(h.ratio == Approx(1.666667).epsilon(1e-6));
  CHECK_FALSE(h.passed);
  // The device ceiling takes no CPU time: D / n1 = 25,000 / 0.999707486
  // = 25,007.31 reads/s, 2.501 x RocksDB, for both.
  for (const RatioCheck* c : {&l, &h}) {
    REQUIRE(c->ceiling.available);
    CHECK(c->ceiling.device.ratio == Approx(25000 / kN1 / 10000));
    CHECK(c->ceiling.held);
  }
  // The own ceilings: 1 / (n1 x 40 + c) us with c = 10 and 20 us (each
  // the residual 1 / R - 40 us and the measured CPU time):
  // 20,004.68 and 16,669.92 reads/s, 2.000 and 1.667 x RocksDB.
  CHECK(l.ceiling.cpu_per_read_s == Approx(10e-6));
  CHECK(h.ceiling.cpu_per_read_s == Approx(20e-6));
  CHECK(l.ceiling.own.ratio == Approx(1e6 / (kN1 * 40 + 10) / 10000));
  CHECK(h.ceiling.own.ratio == Approx(1e6 / (kN1 * 40 + 20) / 10000));
  // The heavy arena's own ceiling lies below the 1.8 bound, but a format
  // with less CPU per read would pass on this device: not beyond.
  CHECK(h.ceiling.own.interval.high < h.threshold.bound);
  CHECK_FALSE(h.ceiling.beyond);
  CHECK(heavy.BeyondCeiling().empty());
  CHECK(VerdictLines(heavy)[0].find("beyond") == std::string::npos);
  CHECK(heavy.reason.find("beyond this device's limit") == std::string::npos);
  const auto doc = OnePagePerHit(b, 20);
  const std::string md =
      RenderMarkdown(BuildDocument(heavy, testing::Parse(doc)));
  CHECK(md.find("; beyond this device's limit") == std::string::npos);
  CHECK(md.find("] beyond") == std::string::npos);
  // The ratio table gives both ceilings, device first.
  CHECK(md.find("| 2.501 [2.501, 2.501] | 1.667 [1.667, 1.667] | **FAIL") !=
        std::string::npos);
}

TEST_CASE("an own ceiling that is the measurement says so",
          "[report][ceiling]") {
  ResultsBuilder b;
  b.jitter = 0;
  // Half a page per hit measured (fewer than the model's 0.9997, so n1 =
  // 0.5), 50 us per read: 20,000 hits/s, 2.000 x RocksDB. With 40 us of
  // CPU measured, c is the residual 50 - 0.5 x 40 = 30 us: the own
  // ceiling, 1 / (0.5 x 40 + 30) us, is the measured 20,000/s.
  const auto doc = ArenaHits(b, 0.5, 40, 50);
  const Verdict echo = Judge(doc);
  const RatioCheck& e = HitCheck(echo, "rocksdb", "account", 1);
  REQUIRE(e.ceiling.available);
  CHECK(e.ceiling.cpu_per_read_s == Approx(30e-6));
  CHECK(e.ceiling.own.ratio == Approx(e.ratio));
  CHECK(e.ceiling.own_is_measured);
  const std::string md =
      RenderMarkdown(BuildDocument(echo, testing::Parse(doc)));
  CHECK(md.find("| " + std::string(kOwnIsMeasured) + " |") !=
        std::string::npos);
  CHECK(md.find("| 2.000 [2.000, 2.000] |") == std::string::npos);
  CHECK(OwnCeilingText(e.ceiling) ==
        "this read path already runs at its own ceiling: its time per read "
        "is its device waits plus 30 µs");
  // With 20 us of CPU, c = 20 us: 1 / (20 + 20) us = 25,000/s, 2.500 x,
  // a ceiling above the measurement.
  const Verdict lean = Judge(ArenaHits(b, 0.5, 20, 50));
  const RatioCheck& l = HitCheck(lean, "rocksdb", "account", 1);
  CHECK(l.ceiling.own.ratio == Approx(2.5));
  CHECK_FALSE(l.ceiling.own_is_measured);
  CHECK(OwnCeilingText(l.ceiling) ==
        "this read path's own ceiling, with its 20 µs of CPU per read: "
        "2.500 [2.500, 2.500]");
}

TEST_CASE("an arena at the device's limit keeps its beyond mark",
          "[report][ceiling]") {
  ResultsBuilder b;
  b.jitter = 0;
  // RocksDB at 20,000 hits/s, and the arena's account hits at one page
  // and 1 us of CPU per read: 1 / 41 us = 24,390.24 hits/s, 0.976 of its
  // device's 25,000 reads/s, 1.220 x RocksDB. A one-page format reaches at
  // most D / n1 = 25,007.31 reads/s, 1.250 x: the 1.8 bound is beyond it.
  b.hit_reads_per_s["rocksdb"] = 20000;
  const auto doc = OnePagePerHit(b, 1);
  const Verdict v = Judge(doc);
  const RatioCheck& c = HitCheck(v, "rocksdb", "account", 1);
  CHECK(c.ratio == Approx(1e6 / 41 / 20000));
  REQUIRE(c.ceiling.available);
  CHECK(c.ceiling.device.ratio == Approx(25000 / kN1 / 20000));
  CHECK(c.ceiling.own.ratio == Approx(1e6 / (kN1 * 40 + 1) / 20000));
  CHECK(c.ceiling.held);
  CHECK(c.ceiling.beyond);
  CHECK(VerdictLines(v)[0].find("beyond this device's limit for any "
                                "one-page format") != std::string::npos);
  const std::string md = RenderMarkdown(BuildDocument(v, testing::Parse(doc)));
  CHECK(md.find("| 1.250 [1.250, 1.250] beyond |") != std::string::npos);
  // The same figures at smoke scale fail the scale gate: the mark stays,
  // provisional like every outcome of that run. RocksDB matches the arena's
  // 20,000 in the other hit cells, so all six checks against it are beyond.
  b.scale = "smoke";
  const auto smoke = OnePagePerHit(b, 1);
  const Verdict p = Judge(smoke);
  REQUIRE_FALSE(p.Valid());
  CHECK(HitCheck(p, "rocksdb", "account", 1).ceiling.beyond);
  CHECK(VerdictLines(p)[0].find("; provisionally 6 checks are beyond this "
                                "device's limit") != std::string::npos);
  const std::string pmd =
      RenderMarkdown(BuildDocument(p, testing::Parse(smoke)));
  CHECK(pmd.find("| 1.250 [1.250, 1.250] beyond (provisional) |") !=
        std::string::npos);
  CHECK(pmd.find("] beyond |") == std::string::npos);
}

TEST_CASE("both ceilings at smoke size, fewer pages than reads",
          "[report][ceiling]") {
  ResultsBuilder b;
  b.jitter = 0;
  auto doc = b.Build();
  // A 5,000-read pass at 1 thread over an account file of 2,500 pages.
  const std::string device = "arena/account/device/cold/threads:1/";
  const std::string hit = "arena/account/hit/cold/threads:1/";
  testing::SetCounter(doc, device, "file_pages", 2500);
  testing::SetCounter(doc, device, "device_file_bytes", 2500 * 4096.0);
  testing::SetCounter(doc, hit, "distinct_keys", 5000);
  testing::SetCounter(doc, hit, "iterations", 5000);
  SECTION("the model's distinct pages, below the measured pages") {
    Verdict v = Judge(doc);
    // n1 = 2,500 (1 - e^-2) / 5,000 = 0.432332358 pages per hit, below
    // the measured 1.123. The device ceiling: D / n1 = 25,000 /
    // 0.432332358 = 57,825.88 reads/s, 5.783 x RocksDB's 10,000 and
    // 2.891 x LMDB's 20,000. The own ceiling: c = 50 - 1.123046875 x 40 =
    // 5.078125 us, so R* = 1 / (0.432332358 x 40 + 5.078125) us =
    // 44,699.89 reads/s: 4.470 x RocksDB and 2.235 x LMDB.
    const RatioCheck& rocks = HitCheck(v, "rocksdb", "account", 1);
    REQUIRE(rocks.ceiling.available);
    CHECK(rocks.ceiling.table_pages == 2500);
    CHECK(rocks.ceiling.reads_per_pass == 5000);
    CHECK(rocks.ceiling.model_pages == Approx(0.432332358).epsilon(1e-8));
    CHECK(rocks.ceiling.pages_per_hit == Approx(0.432332358).epsilon(1e-8));
    CHECK(rocks.ceiling.cpu_per_read_s == Approx(5.078125e-6));
    CHECK(rocks.ceiling.device.rate == Approx(57825.88).epsilon(1e-6));
    CHECK(rocks.ceiling.device.ratio == Approx(5.782588).epsilon(1e-6));
    CHECK(rocks.ceiling.own.rate == Approx(44699.89).epsilon(1e-6));
    CHECK(rocks.ceiling.own.ratio == Approx(4.469989).epsilon(1e-6));
    CHECK(rocks.ceiling.held);
    const RatioCheck& lmdb = HitCheck(v, "lmdb", "account", 1);
    CHECK(lmdb.ceiling.device.ratio == Approx(2.891294).epsilon(1e-6));
    CHECK(lmdb.ceiling.own.ratio == Approx(2.234995).epsilon(1e-6));
    // Storage and other thread counts keep the full-size figures.
    CHECK(HitCheck(v, "rocksdb", "storage", 1).ceiling.pages_per_hit ==
          Approx(0.999707486).epsilon(1e-8));
  }
  SECTION("never more than the measured pages per hit") {
    // The pass measured 0.3 pages per hit (0.3 faults, 1,228.8 bytes):
    // n1 = min(0.432, 0.3) = 0.3. The device ceiling is 25,000 / 0.3 =
    // 83,333.33 reads/s, 8.333 x RocksDB. For the own ceiling c = 50 -
    // 0.3 x 40 = 38 us and R* = 1 / (0.3 x 40 + 38) us = 20,000 reads/s:
    // exactly the arena's rate, so it is its measured ratio, 2.000.
    testing::SetCounter(doc, hit, "major_faults_per_read", 0.3);
    testing::SetCounter(doc, hit, "bytes_read_per_read", 1228.8);
    Verdict v = Judge(doc);
    const RatioCheck& rocks = HitCheck(v, "rocksdb", "account", 1);
    CHECK(rocks.ceiling.measured_pages == Approx(0.3));
    CHECK(rocks.ceiling.pages_per_hit == Approx(0.3));
    CHECK(rocks.ceiling.cpu_per_read_s == Approx(38e-6));
    CHECK(rocks.ceiling.device.ratio == Approx(8.333333).epsilon(1e-6));
    CHECK(rocks.ceiling.own.ratio == Approx(2.0));
    CHECK(rocks.ceiling.held);
  }
  SECTION("the pass's measured CPU time when it is below the residual") {
    // Same 0.3 pages per hit, but the pass measured 18 us of CPU per read:
    // the other 20 us of the residual were not the format's work. c = 18 us
    // and R* = 1 / (0.3 x 40 + 18) us = 33,333.33 reads/s: 3.333 x RocksDB.
    testing::SetCounter(doc, hit, "major_faults_per_read", 0.3);
    testing::SetCounter(doc, hit, "bytes_read_per_read", 1228.8);
    testing::SetCounter(doc, hit, "cpu_ns_per_read", 18000);
    Verdict v = Judge(doc);
    const RatioCheck& rocks = HitCheck(v, "rocksdb", "account", 1);
    CHECK(rocks.ceiling.cpu_per_read_s == Approx(18e-6));
    CHECK(rocks.ceiling.own.ratio == Approx(3.333333).epsilon(1e-6));
    // The device ceiling takes no CPU time: unchanged.
    CHECK(rocks.ceiling.device.ratio == Approx(8.333333).epsilon(1e-6));
    CHECK(rocks.ceiling.held);
    // A measured CPU time above the residual leaves the residual (38 us).
    testing::SetCounter(doc, hit, "cpu_ns_per_read", 90000);
    Verdict v2 = Judge(doc);
    const RatioCheck& high = HitCheck(v2, "rocksdb", "account", 1);
    CHECK(high.ceiling.cpu_per_read_s == Approx(38e-6));
  }
}

// A run of every read path with batches, whose arena+cache answers
// 40,000 hits/s per thread from its own device's 25,000 reads/s by reading
// 0.55 pages per hit (2,252.8 bytes, no faults): its other hits come from
// its cache.
nlohmann::json EfficiencyRun() {
  ResultsBuilder b;
  b.jitter = 0;
  b.batch_cells = true;
  b.backends = {"arena", "arena+cache", "rocksdb", "lmdb"};
  b.hit_reads_per_s["arena+cache"] = 40000;
  b.miss_reads_per_s["arena+cache"] = b.miss_reads_per_s["arena"];
  b.device_reads_per_s["arena+cache"] = 25000;
  auto doc = b.Build();
  testing::SetCounter(doc, "arena+cache/account/hit/cold/",
                      "major_faults_per_read", 0);
  testing::SetCounter(doc, "arena+cache/account/hit/cold/",
                      "bytes_read_per_read", 0.55 * 4096);
  return doc;
}

TEST_CASE("the device-side efficiency and the hit rate ÷ device rate, by hand",
          "[report][efficiency]") {
  auto doc = EfficiencyRun();
  const Verdict v = Judge(doc);
  namespace r = flatbench::results;
  SECTION("storage reads/s over the device rate") {
    // The arena: max(1.1, 4,600 / 4,096) = 1.123046875 pages per hit x
    // 20,000 hits/s = 22,460.94 storage reads/s over 25,000: 0.898, where
    // its hits/s over the same rate are 0.800.
    const CellStats& arena = Cell(v, "arena", "hit", 1);
    CHECK(arena.device_side.median == Approx(0.8984375));
    CHECK(arena.Of(r::kIoEfficiency).median == Approx(0.8));
    // A batch: 1.123046875 storage reads per key x 80,000 keys/s over the
    // device's 800,000 reads/s at depth 32: 0.112, where its keys/s over
    // the same rate are 0.100.
    const CellStats& batch = Cell(v, "arena", "batch", 1);
    CHECK(batch.device_side.median == Approx(0.1123046875));
    CHECK(batch.Of(r::kBatchIoEfficiency).median == Approx(0.1));
    // No device rate, no figure.
    CHECK(std::isnan(Cell(v, "arena", "miss-absent", 1).device_side.median));
  }
  SECTION("a storage-bound cell is at most about 1") {
    // arena+cache: 0.55 x 40,000 = 22,000 storage reads/s over 25,000 =
    // 0.880 at every thread count, where its hit rate ÷ device rate is
    // 1.600, not a fraction.
    for (int threads : {1, 8, 32}) {
      CAPTURE(threads);
      const CellStats& c = Cell(v, "arena+cache", "hit", threads);
      CHECK(c.Of(r::kStorageBound).median == 1);
      CHECK(c.Of(r::kIoEfficiency).median == Approx(1.6));
      CHECK(c.device_side.median == Approx(0.88));
      CHECK(c.device_side.median <= 1.1);
    }
    const std::string md =
        RenderMarkdown(BuildDocument(v, testing::Parse(doc)));
    // The per-cell table names both, the device-side one first.
    CHECK(md.find("| device-side efficiency | hit rate ÷ device rate (own "
                  "files' device rate) |") != std::string::npos);
    CHECK(md.find("| arena+cache | 40,000 |") != std::string::npos);
    CHECK(md.find("| 0.88 | 1.60 (25,000) |") != std::string::npos);
    // The batch table too, beside the point reads'.
    CHECK(md.find("| device-side efficiency | keys/s ÷ device rate |") !=
          std::string::npos);
    CHECK(md.find("| point device-side efficiency | point hits/s ÷ device "
                  "rate |") != std::string::npos);
  }
}

TEST_CASE("the device-side efficiency counts the device's requests",
          "[report][efficiency]") {
  auto doc = EfficiencyRun();
  // RocksDB reads one 12 KiB block per hit: 3 pages by its bytes, one
  // request at the device. 10,000 hits/s over 25,000 device reads/s:
  // 0.400 with the request counted, where bytes / 4 KiB would claim
  // 3 x 0.400 = 1.200, more than the device gave.
  auto& counted = doc;
  const std::string hit = "rocksdb/account/hit/cold/";
  testing::SetCounter(counted, hit, "bytes_read_per_read", 3 * 4096);
  testing::SetCounter(counted, hit, "major_faults_per_read", 0);
  const Verdict by_bytes = Judge(counted);
  CHECK(Cell(by_bytes, "rocksdb", "hit", 1).device_side.median == Approx(1.2));
  testing::SetCounter(counted, hit, "device_requests_per_read", 1);
  // A batch of 32 keys that cost 16 requests per call: 0.5 per key x
  // keys/s over the device rate at depth 32 (0.100): 0.050.
  testing::SetCounter(counted, "arena/account/batch/cold/",
                      "device_requests_per_read", 16);
  const Verdict by_requests = Judge(counted);
  CHECK(Cell(by_requests, "rocksdb", "hit", 1).device_side.median ==
        Approx(0.4));
  CHECK(Cell(by_requests, "arena", "batch", 1).device_side.median ==
        Approx(0.05));
}

}  // namespace
}  // namespace flatbench::report
