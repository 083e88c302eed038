// The bottom line under the badge: every sentence held to the figures of a
// crafted run whose ratios are worked by hand (results_builder.h: per
// thread, arena 20,000 hits/s, RocksDB 10,000, LMDB 20,000; misses arena
// 100,000/s, LMDB 100,000/s; device cells 25,000/s), for a GO, a NO-GO, an
// INCONCLUSIVE at smoke scale and an INCONCLUSIVE at full scale.
#include <catch2/catch.hpp>

#include "report/document/document.h"
#include "report/document/document_parts.h"
#include "report/document/html.h"
#include "report/document/markdown.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using testing::FailedGateNames;
using testing::Judge;
using testing::Parse;
using testing::ResultsBuilder;

// arena/rocksdb hit 2.000, arena/lmdb hit 1.000 and miss cost 1.000, on
// every cell: each check passes clear of its bound.
const char kAllPass[] =
    "against rocksdb, 6 of 6 hit checks pass (ratio 2.000, needs ≥ 1.800); "
    "against lmdb, 6 of 6 hit checks pass (ratio 1.000, needs ≥ 0.850); "
    "misses against lmdb, 9 of 9 pass (cost ratio 1.000, needs ≤ 1.200).";

const char kFullRun[] =
    "Next: on a host with at least 32 hardware threads, `./flatbench.sh "
    "gonogo --plan --scale full`";

TEST_CASE("the bottom line of a GO", "[report][bottom-line]") {
  ResultsBuilder b;
  b.jitter = 0;
  b.backends.push_back("arena+cache");
  b.hit_reads_per_s["arena+cache"] = 20000;
  b.miss_reads_per_s["arena+cache"] = 100000;
  b.device_reads_per_s["arena+cache"] = 25000;
  const auto doc = b.Build();
  Verdict v = Judge(doc);
  REQUIRE(v.outcome == Outcome::kGo);
  const BottomLine line = BottomLineOf(v, Parse(doc));
  CHECK_THAT(
      line.decision,
      Catch::StartsWith(
          "GO: the run is valid and arena (mmap) passes all 21 checks clear of "
          "their bounds, so these numbers support moving the base tier to the "
          "arena."));
  // One sentence per judged read path, not provisional on a valid run.
  REQUIRE(line.paths.size() == 2);
  CHECK(line.paths[0] == std::string("arena (mmap): ") + kAllPass);
  CHECK(line.paths[1] == std::string("arena+cache: ") + kAllPass);
  CHECK(line.limit.empty());
  // Bulk-loaded stores: the next step is the shape a live node has.
  CHECK_THAT(line.next,
             Catch::StartsWith(
                 "Next: confirm it on the shape a running node's stores have: "
                 "`./flatbench.sh gonogo --scale full --shape aged`."));
}

TEST_CASE("the bottom line of a NO-GO", "[report][bottom-line]") {
  ResultsBuilder b;
  b.jitter = 0;
  auto doc = b.Build();
  SECTION("a check the device allows, failed by the format") {
    // Account hits at 1 thread at 12,000/s: 1.200 x RocksDB (needs 1.8) and
    // 0.600 x LMDB (needs 0.85); with 1 us of CPU per read a one-page
    // format would reach the device's 25,000/s, so neither is beyond it.
    testing::SetRate(doc, "arena/account/hit/cold/threads:1/", 12000);
    testing::SetCounter(doc, "arena/account/hit/cold/threads:1/",
                        "cpu_ns_per_read", 1000);
    Verdict v = Judge(doc);
    REQUIRE(v.outcome == Outcome::kNoGo);
    REQUIRE(v.BeyondCeiling().empty());
    const BottomLine line = BottomLineOf(v, Parse(doc));
    // Margins: (1.2 - 1.8) / 1.8 = -33% against RocksDB, (0.6 - 0.85) /
    // 0.85 = -29% against LMDB: RocksDB's is the furthest.
    CHECK_THAT(
        line.decision,
        Catch::StartsWith(
            "NO-GO: the run is valid and arena (mmap) fails 2 of 21 checks "
            "clear of their bounds (the furthest: account hit at 1 thread "
            "against rocksdb, 1.200 where ≥ 1.800 is needed), so these numbers "
            "do not support moving the base tier to the arena."));
    REQUIRE(line.paths.size() == 1);
    CHECK(line.paths[0] ==
          "arena (mmap): against rocksdb, 5 of 6 hit checks pass, 1 fails "
          "(ratio 1.200–2.000, needs ≥ 1.800); against lmdb, 5 of 6 hit "
          "checks pass, 1 fails (ratio 0.600–1.000, needs ≥ 0.850); misses "
          "against lmdb, 9 of 9 pass (cost ratio 1.000, needs ≤ 1.200).");
    CHECK(line.limit.empty());
    CHECK_THAT(
        line.next,
        Catch::StartsWith(
            "Next: compare every read path of the arena on the same files: "
            "`./flatbench.sh gonogo --scale full --backends "
            "arena,arena+cache,arena+direct,arena+pread,rocksdb,lmdb`."));
  }
  SECTION("checks beyond the device's limit") {
    // RocksDB as fast as the arena: 1.000 against a bound of 1.8 on every
    // hit check against it, while one 4 KiB read per hit at the device's
    // 25,000/s reaches at most 1.25 x RocksDB's 20,000: beyond.
    b.hit_reads_per_s["rocksdb"] = 20000;
    doc = b.Build();
    Verdict v = Judge(doc);
    REQUIRE(v.outcome == Outcome::kNoGo);
    REQUIRE(v.BeyondCeiling().size() == 6);
    const BottomLine line = BottomLineOf(v, Parse(doc));
    CHECK(line.decision.rfind("NO-GO: the run is valid and arena (mmap) "
                              "fails 6 of 21 checks",
                              0) == 0);
    CHECK(line.paths[0].rfind("arena (mmap): against rocksdb, 0 of 6 hit "
                              "checks pass, 6 fail (ratio 1.000, needs ≥ "
                              "1.800); ",
                              0) == 0);
    CHECK(line.limit ==
          "What limits it: the device. 6 of 21 checks are beyond its limit "
          "for any one-page format: their bound lies above the ratio that one "
          "4 KiB read per hit would reach at these files' device rates, so no "
          "format could pass them here.");
    CHECK(line.next.rfind("Next: the device limits the failing checks, so "
                          "profile the storage your nodes use",
                          0) == 0);
    CHECK(line.next.find("`./flatbench.sh gonogo --plan --scale full "
                         "--device-profile P.json`.") != std::string::npos);
  }
}

TEST_CASE("the bottom line of an INCONCLUSIVE smoke run",
          "[report][bottom-line]") {
  ResultsBuilder b;
  b.jitter = 0;
  b.scale = "smoke";
  b.accounts = 100000;
  b.slots_per_account = 5;
  b.spec = "flatbench-dataset v1 accounts=100000 slots_per_account=5 seed=42";
  b.disk_bytes = 50000000;
  b.hardware_threads = 2;
  b.repetitions = 3;
  b.backends.push_back("arena+cache");
  b.hit_reads_per_s["arena+cache"] = 20000;
  b.miss_reads_per_s["arena+cache"] = 100000;
  b.device_reads_per_s["arena+cache"] = 25000;
  const auto doc = b.Build();
  Verdict v = Judge(doc);
  REQUIRE(v.outcome == Outcome::kInconclusive);
  REQUIRE(FailedGateNames(v) ==
          std::vector<std::string>{"gate scale", "host hardware threads",
                                   "repetitions"});
  const BottomLine line = BottomLineOf(v, Parse(doc));
  CHECK_THAT(
      line.decision,
      Catch::StartsWith(
          "Not decided: the run is not valid evidence, because 3 validity "
          "gates "
          "failed (gate scale, host hardware threads, repetitions), so every "
          "figure below is provisional."));
  REQUIRE(line.paths.size() == 2);
  CHECK(line.paths[0] ==
        std::string("arena (mmap), provisionally: ") + kAllPass);
  CHECK(line.paths[1] ==
        std::string("arena+cache, provisionally: ") + kAllPass);
  // The scale comes first of the three things that limit it.
  CHECK(line.limit ==
        "What limits it: the scale. This run is at smoke scale (100,000 "
        "accounts × 5 slots); the thresholds apply at full scale, where the "
        "data is far larger than RAM, so ratios measured here do not predict "
        "the answer there.");
  CHECK_THAT(line.next,
             Catch::StartsWith(std::string(kFullRun) +
                               " prints the disk, RAM and time the run needs; "
                               "then run it without `--plan`."));

  // In the report: a box under the badge, its sentences in that order.
  const Document d = BuildDocument(v, Parse(doc));
  const std::string md = RenderMarkdown(d);
  const size_t badge = md.find("## Verdict: INCONCLUSIVE\n\n");
  REQUIRE(badge != std::string::npos);
  std::string box = "> **The bottom line**\n>\n> - " + line.decision + "\n";
  for (const auto& p : line.paths) box += "> - " + p + "\n";
  box += "> - " + line.limit + "\n> - " + line.next + "\n";
  CHECK(md.find(box) ==
        badge + std::string("## Verdict: INCONCLUSIVE\n\n").size());
  const std::string html = RenderHtml(d);
  const size_t div = html.find("<div class=\"box\">\n<p>The bottom line</p>");
  REQUIRE(div != std::string::npos);
  CHECK(div > html.find("<span class=\"verdict inconclusive\">"));
  CHECK(div < html.find("<table"));
  CHECK(html.find("<code>./flatbench.sh gonogo --plan --scale full</code>",
                  div) != std::string::npos);
}

TEST_CASE("the bottom line of an INCONCLUSIVE full-scale run",
          "[report][bottom-line]") {
  ResultsBuilder b;
  SECTION("valid, but within noise") {
    // Arena 18,200 hits/s: 1.820 x RocksDB, whose repetitions (5% apart)
    // put the bound of 1.8 inside every interval; 1.213 x LMDB's 15,000.
    b.jitter = 0.05;
    b.hit_reads_per_s["arena"] = 18200;
    b.hit_reads_per_s["lmdb"] = 15000;
    const auto doc = b.Build();
    Verdict v = Judge(doc);
    REQUIRE(v.outcome == Outcome::kInconclusive);
    REQUIRE(v.Valid());
    const BottomLine line = BottomLineOf(v, Parse(doc));
    CHECK_THAT(
        line.decision,
        Catch::StartsWith(
            "Not decided: the run is valid, but 6 of 21 checks are within "
            "noise "
            "(their 95% intervals contain the bound) and none fails clearly."));
    REQUIRE(line.paths.size() == 1);
    CHECK(line.paths[0] ==
          "arena (mmap): against rocksdb, 0 of 6 hit checks pass, 6 within "
          "noise (ratio 1.820, needs ≥ 1.800); against lmdb, 6 of 6 hit "
          "checks pass (ratio 1.213, needs ≥ 0.850); misses against lmdb, 9 "
          "of 9 pass (cost ratio 1.000, needs ≤ 1.200).");
    CHECK(line.limit.empty());
    CHECK_THAT(
        line.next,
        Catch::StartsWith(
            "Next: more repetitions narrow the intervals: `./flatbench.sh "
            "gonogo --scale full --repetitions 10 --fresh`."));
  }
  SECTION("without the miss cells") {
    b.jitter = 0;
    auto doc = b.Build();
    for (const char* cell : {"lmdb/account/miss-absent/",
                             "lmdb/storage/"
                             "miss-absent/",
                             "lmdb/storage/miss-live/"}) {
      REQUIRE(testing::RemoveEntries(doc, cell) > 0);
    }
    Verdict v = Judge(doc);
    REQUIRE(FailedGateNames(v) ==
            std::vector<std::string>{"required cells present"});
    const BottomLine line = BottomLineOf(v, Parse(doc));
    CHECK(line.paths[0] ==
          "arena (mmap), provisionally: against rocksdb, 6 of 6 hit checks "
          "pass (ratio 2.000, needs ≥ 1.800); against lmdb, 6 of 6 hit "
          "checks pass (ratio 1.000, needs ≥ 0.850); misses against lmdb, no "
          "figure for any of its 9 checks (needs ≤ 1.200).");
    CHECK(line.limit.empty());
    CHECK_THAT(
        line.next,
        Catch::StartsWith(
            "Next: the whole matrix, without flags that leave backends, tables "
            "or thread counts out: `./flatbench.sh gonogo --scale full "
            "--fresh`."));
  }
  SECTION("on a host with too few hardware threads") {
    b.jitter = 0;
    b.hardware_threads = 8;
    const auto doc = b.Build();
    Verdict v = Judge(doc);
    REQUIRE(FailedGateNames(v) ==
            std::vector<std::string>{"host hardware threads"});
    const BottomLine line = BottomLineOf(v, Parse(doc));
    CHECK_THAT(
        line.decision,
        Catch::StartsWith(
            "Not decided: the run is not valid evidence, because 1 validity "
            "gate failed (host hardware threads), so every figure below is "
            "provisional."));
    CHECK(line.paths[0] ==
          std::string("arena (mmap), provisionally: ") + kAllPass);
    CHECK(line.limit ==
          "What limits it: the host. It has 8 hardware threads, fewer than "
          "the 32 reader threads of the largest cells, so those cells "
          "time-share cores and understate every backend.");
    CHECK_THAT(line.next,
               Catch::StartsWith(std::string(kFullRun) +
                                 ", then the same without `--plan`."));
  }
}

}  // namespace
}  // namespace flatbench::report
