// The report's first screen: the decision card, the sentences under it,
// where the device ceiling does not hold, and every read path's ratio
// charts, on constructed results whose figures are worked by hand.
#include <catch2/catch.hpp>
#include <sstream>

#include "report/document/document.h"
#include "report/document/document_parts.h"
#include "report/document/html.h"
#include "report/document/markdown.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using testing::HitCheck;
using testing::Judge;
using testing::ResultsBuilder;

// Builder figures per single thread (results_builder.h): arena 20,000
// hits/s, its device cells 25,000 4 KiB reads/s, RocksDB 10,000, LMDB
// 20,000; cold hits read 4,600 bytes and take 1.1 major faults per read.
ResultsBuilder AllReadPaths() {
  ResultsBuilder b;
  b.backends = {"arena",       "arena+cache", "arena+direct",
                "arena+pread", "rocksdb",     "lmdb"};
  for (const char* p : {"arena+cache", "arena+direct", "arena+pread"}) {
    b.hit_reads_per_s[p] = b.hit_reads_per_s["arena"];
    b.miss_reads_per_s[p] = b.miss_reads_per_s["arena"];
    b.device_reads_per_s[p] = b.device_reads_per_s["arena"];
  }
  return b;
}

// The markdown up to the card's end: everything before the first section
// after it, without the blank line that closes the card, and without the
// table of contents and the bottom line's box above the card (each line
// of them and the blank line after each).
std::string CardText(const std::string& md) {
  const size_t next = md.find("\n## What the run says");
  REQUIRE(next != std::string::npos);
  std::istringstream in(md.substr(0, next));
  std::string card;
  bool skipped = false;
  for (std::string line; std::getline(in, line);) {
    const bool above =
        line.rfind("Contents", 0) == 0 || line.rfind(">", 0) == 0;
    if (above || (skipped && line.empty())) {
      skipped = above;
      continue;
    }
    skipped = false;
    card += line + "\n";
  }
  while (!card.empty() && card.back() == '\n') card.pop_back();
  return card;
}

int Lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
}

TEST_CASE("a ceiling the measurement beats did not hold and is not beyond",
          "[report][ceiling]") {
  ResultsBuilder b;
  b.jitter = 0;
  // The arena's device cells read 12,000/s, slower than its 20,000 hits/s
  // (hit rate ÷ device rate 1.67), and RocksDB as fast as the arena: ratio
  // 1.000, failing 1.8. The device ceiling is D / n1 = 12,000 /
  // 0.999707486 = 12,003.51 reads/s: 0.600, which the measured 1.000 lies
  // above. (The waits, 83.3 us, exceed the time per read, 50 us, so c = 0
  // and the own ceiling is the same.)
  b.device_reads_per_s["arena"] = 12000;
  b.hit_reads_per_s["rocksdb"] = 20000;
  Verdict v = Judge(b.Build());
  const RatioCheck& c = HitCheck(v, "rocksdb", "account", 1);
  REQUIRE(c.ceiling.available);
  CHECK(c.ratio == Approx(1.0));
  CHECK(c.ceiling.cpu_per_read_s == 0);
  CHECK(c.ceiling.device.ratio == Approx(0.6001756).epsilon(1e-6));
  CHECK(c.ceiling.own.ratio == Approx(0.6001756).epsilon(1e-6));
  CHECK_FALSE(c.passed);
  CHECK(c.threshold.bound > c.ceiling.device.interval.high);
  CHECK_FALSE(c.ceiling.held);
  CHECK_FALSE(c.ceiling.beyond);
  CHECK(v.BeyondCeiling().empty());
  // Both hit checks at every thread count and table: 12 of 21.
  CHECK(v.CeilingNotHeld().size() == 12);
  CAPTURE(v.reason);
  CHECK(v.reason.find("The device ceiling did not hold for 12 checks") !=
        std::string::npos);
  CHECK(v.reason.find("arena/rocksdb cold hit reads/s for account hit at 1 "
                      "thread measured 1.000, device ceiling 0.600 [0.600, "
                      "0.600]") != std::string::npos);
  CHECK(v.reason.find("beyond this device's limit") == std::string::npos);
  const std::string md =
      RenderMarkdown(BuildDocument(v, testing::Parse(b.Build())));
  CHECK(md.find("the device ceiling did not hold (ratio 1.000 above its "
                "interval)") != std::string::npos);
  CHECK(md.find("0.600 [0.600, 0.600] did not hold") != std::string::npos);
  CHECK(md.find("arena/rocksdb cold hit reads/s (account hit, 1 thread) "
                "measured 1.000 against a device ceiling of 0.600 [0.600, "
                "0.600]") != std::string::npos);
}

TEST_CASE("the decision card fits 40 lines and names every failing check",
          "[report][render]") {
  const std::string scale = GENERATE("smoke", "medium", "full");
  CAPTURE(scale);
  ResultsBuilder b = AllReadPaths();
  b.jitter = 0;
  b.scale = scale;
  if (scale != "full") {
    // A small run on a small host: several gates fail.
    b.hardware_threads = 2;
    b.repetitions = 3;
  }
  // Account hits at 1 thread fail against RocksDB (1.2 x).
  auto doc = b.Build();
  testing::SetRate(doc, "arena/account/hit/cold/threads:1/", 12000);
  Verdict v = Judge(doc);
  const std::string md = RenderMarkdown(BuildDocument(v, testing::Parse(doc)));
  const std::string card = CardText(md);
  CAPTURE(card);
  CHECK(Lines(card) <= kCardLines);
  // The verdict, one line per read path, and the table's header.
  CHECK(card.find(std::string("## Verdict: ") + OutcomeName(v.outcome)) !=
        std::string::npos);
  for (const char* path : {"- arena (mmap): ", "- arena+cache: ",
                           "- arena+direct: ", "- arena+pread: "}) {
    CHECK(card.find(path) != std::string::npos);
  }
  // Each read path's ratio, then each read path's device ceiling.
  CHECK(card.find("| table | kind | threads | check | bound | arena (mmap) "
                  "[95%] | arena+cache [95%] | arena+direct [95%] | "
                  "arena+pread [95%] | device ceiling, arena (mmap) [95%] | "
                  "device ceiling, arena+cache [95%] | device ceiling, "
                  "arena+direct [95%] | device ceiling, arena+pread [95%] |") !=
        std::string::npos);
  CHECK(card.find("|---|---|---:|---|---:|---:|") != std::string::npos);
  // Every failing check's ratio, interval and outcome, beside its bound,
  // marked provisional on a run that is not valid.
  const RatioCheck& failing = HitCheck(v, "rocksdb", "account", 1);
  REQUIRE_FALSE(failing.passed);
  const std::string mark = v.Valid() ? "" : " (provisional)";
  CHECK(card.find("| account | hit | 1 | vs rocksdb reads/s | ≥ 1.800 | "
                  "**1.200 [1.200, 1.200] FAIL" +
                  mark + "** | 2.000 [") != std::string::npos);
  // The device ceilings: D / n1 = 25,000 / 0.999707486 over RocksDB's
  // 10,000, the same files for every read path.
  CHECK(card.find("| 2.501 [2.501, 2.501] | 2.501 [2.501, 2.501] | 2.501 "
                  "[2.501, 2.501] | 2.501 [2.501, 2.501] |") !=
        std::string::npos);
  // On a run that is not valid, every outcome of every read path is
  // marked provisional: 21 checks x 4 read paths.
  size_t provisional = 0;
  for (size_t at = card.find("(provisional)"); at != std::string::npos;
       at = card.find("(provisional)", at + 1)) {
    ++provisional;
  }
  CHECK(provisional == (v.Valid() ? 0 : v.checks.size() * 4));
  // One row per gated check.
  for (const auto& c : v.checks) {
    const std::string row = "| " + c.candidate.table + " | " +
                            c.candidate.kind + " | " +
                            std::to_string(c.candidate.threads) + " | ";
    CHECK(card.find(row) != std::string::npos);
  }
  // Each failed gate on a line of its own (or folded into the last).
  for (const Gate* g : v.FailedGates()) {
    CHECK(card.find(g->name) != std::string::npos);
  }
  if (v.FailedGates().empty()) {
    CHECK(card.find("- every validity gate passed") != std::string::npos);
  }
  // The reasons follow the card, a bullet per failed gate and per check
  // that did not pass clear of its bound.
  const size_t why = md.find("## Why this verdict");
  CHECK(why > md.find("## What the run says"));
  for (const Gate* g : v.FailedGates()) {
    CHECK(md.find("- Validity gate " + g->name + " failed: " + g->figure + ".",
                  why) != std::string::npos);
  }
  CHECK(md.find("- arena/rocksdb cold hit reads/s for account hit at 1 "
                "thread: 1.200 [1.200, 1.200], needs ≥ 1.800, fails clear of "
                "its bound",
                why) != std::string::npos);
}

TEST_CASE("failed gates beyond the card's room fold into one line",
          "[report][render]") {
  ResultsBuilder b = AllReadPaths();
  b.scale = "smoke";
  b.hardware_threads = 2;
  b.repetitions = 2;
  b.build_type = "debug";
  b.asserts_on = true;
  auto doc = b.Build();
  testing::SetCounter(doc, "", "eviction_verified", 0);
  Verdict v = Judge(doc);
  REQUIRE(v.FailedGates().size() >= 6);
  const std::string card =
      CardText(RenderMarkdown(BuildDocument(v, testing::Parse(doc))));
  CAPTURE(card);
  CHECK(Lines(card) <= kCardLines);
  for (const Gate* g : v.FailedGates()) {
    CHECK(card.find(g->name) != std::string::npos);
  }
}

TEST_CASE("the card in HTML is a styled table", "[report][render]") {
  ResultsBuilder b = AllReadPaths();
  b.jitter = 0;
  auto doc = b.Build();
  testing::SetRate(doc, "arena/account/hit/cold/threads:1/", 12000);
  Verdict v = Judge(doc);
  const std::string html = RenderHtml(BuildDocument(v, testing::Parse(doc)));
  const size_t card = html.find("<table class=\"card\">");
  REQUIRE(card != std::string::npos);
  // The card is the first table, right after the read-path lines.
  CHECK(html.find("<table") == card);
  CHECK(html.find("<th class=\"num\">bound</th>", card) != std::string::npos);
  CHECK(html.find("<td class=\"fail num\">1.200 [1.200, 1.200] FAIL</td>",
                  card) != std::string::npos);
  CHECK(html.find("<td class=\"pass num\">", card) != std::string::npos);
  CHECK(html.find("table.card td.fail") != std::string::npos);
  // The terms line under the card links each term's section.
  for (const std::string id :
       {"per-cell-results", "why-this-verdict", "validity-gates"}) {
    CAPTURE(id);
    const size_t link = html.find("<a href=\"#" + id + "\">", card);
    CHECK(link != std::string::npos);
    CHECK(link < html.find("<h2", card));
    CHECK(html.find("<section id=\"" + id + "\"") != std::string::npos);
  }
}

TEST_CASE("the sentences under the card quote the run's own figures",
          "[report][render]") {
  ResultsBuilder b = AllReadPaths();
  b.jitter = 0;
  auto doc = b.Build();
  // RocksDB's account hits read 2.1 pages; the arena's account hits at 8
  // threads run at 0.9 of their device rate (22,500 of 25,000 per thread).
  testing::SetCounter(doc, "rocksdb/account/hit/cold/", "bytes_read_per_read",
                      2.1 * 4096);
  testing::SetRate(doc, "arena/account/hit/cold/threads:8/", 8 * 22500.0);
  Verdict v = Judge(doc);
  const std::vector<std::string> s = Findings(v);
  REQUIRE(s.size() == 7);  // 2 tables, 4 read paths, the beyond sentence.
  CAPTURE(s);
  // Measured: max(1.1 faults, 4,600 / 4,096) = 1.123 pages; the model's
  // median over the thread counts is n1 at 8 threads, 0.998 (full size).
  CHECK(s[0].find("Pages read from storage per account hit") == 0);
  CHECK(s[0].find("arena 1.123 (model 0.998), arena+cache 1.123 (model "
                  "0.998)") != std::string::npos);
  CHECK(
      s[0].find("rocksdb 2.100 (model 0.998) and lmdb 1.123 (model 0.998).") !=
      std::string::npos);
  CHECK(s[1].find("per storage hit") != std::string::npos);
  CHECK(s[1].find("rocksdb 1.123 (model 0.998)") != std::string::npos);
  // Hit rate ÷ device rate 20,000 / 25,000 = 0.80; at 8 threads the
  // median of account's 0.90 and storage's 0.80 is 0.85. Device-side, each
  // times the 1.123046875 pages read per hit: 0.898, and at 8 threads the
  // median of 1.011 and 0.898, 0.955.
  CHECK(s[2] ==
        "arena (mmap) reached a device-side efficiency (storage reads/s, "
        "device read requests per hit × hits/s, over its own files' device "
        "rate, median over the tables) of 0.90 at 1 thread, 0.95 at 8 "
        "threads and 0.90 at 32 threads; its hit rate ÷ device rate "
        "(hits/s over the same rate, above 1 where a pass reads fewer "
        "pages than it has hits) was 0.80 at 1 thread, 0.85 at 8 threads "
        "and 0.80 at 32 threads.");
  CHECK(s[3].find("arena+cache reached") == 0);
  CHECK(s[3].find("of 0.90 at 1 thread, 0.90 at 8 threads and 0.90 at 32 "
                  "threads; its hit rate ÷ device rate") != std::string::npos);
  CHECK(s[3].find("was 0.80 at 1 thread, 0.80 at 8 threads and 0.80 at 32 "
                  "threads.") != std::string::npos);
  CHECK(s[6].find("No check is beyond this device's limit") == 0);

  SECTION("checks no one-page format could pass, and why") {
    // RocksDB as fast as the arena: the device ceiling at 1 thread is
    // 25,007.31 / 20,000 = 1.250 (n1 = 0.9997 pages at 25,000 reads/s),
    // the own ceiling 22,189.47 / 20,000 = 1.109 (c = 5.08 us).
    ResultsBuilder fast = AllReadPaths();
    fast.jitter = 0;
    fast.hit_reads_per_s["rocksdb"] = 20000;
    const std::vector<std::string> f = Findings(Judge(fast.Build()));
    CAPTURE(f);
    CHECK(f.back().find("No one-page format could pass 6 of 21 checks on this "
                        "device: arena/rocksdb cold hit reads/s (account hit, "
                        "1 thread) needs ≥ 1.800, but reading 1.000 pages per "
                        "hit at the device's 25,000 reads/s reaches at most "
                        "1.250 [1.250, 1.250] with no CPU time (this read "
                        "path's own ceiling, with its 5.08 µs of CPU per "
                        "read: 1.109 [1.109, 1.109])") == 0);
    CHECK(f.back().find("; and 2 more.") != std::string::npos);
  }
}

TEST_CASE("every read path has its ratio charts, with bound and ceiling",
          "[report][render]") {
  ResultsBuilder b = AllReadPaths();
  Verdict v = Judge(b.Build());
  Document d = BuildDocument(v, testing::Parse(b.Build()));
  const Section* charts = nullptr;
  for (const auto& s : d.sections) {
    if (s.title == "Ratio charts") charts = &s;
  }
  REQUIRE(charts != nullptr);
  int ratio_charts = 0;
  for (const auto& block : charts->blocks) {
    if (block.kind != Block::Kind::kChart || block.chart.title.empty()) {
      continue;
    }
    ++ratio_charts;
    const BarChart& c = block.chart;
    CAPTURE(c.title);
    REQUIRE(c.series.size() == 4);
    CHECK(c.series[0].name == "arena (mmap)");
    CHECK(c.series[1].name == "arena+cache");
    CHECK(c.series[2].name == "arena+direct");
    CHECK(c.series[3].name == "arena+pread");
    REQUIRE(c.threshold.has_value());
    const bool miss = c.title.find("cost per miss") != std::string::npos;
    CHECK(c.log_scale == miss);
    // The axis names the ratio and which way is better.
    CHECK(c.y_label == (miss ? "arena ÷ lmdb cost per miss\nlower is better ↓"
                        : c.title.find("rocksdb") != std::string::npos
                            ? "arena ÷ rocksdb reads/s\nhigher is better ↑"
                            : "arena ÷ lmdb reads/s\nhigher is better ↑"));
    CHECK(c.threshold_label.find("bound") == 0);
    for (const auto& s : c.series) {
      REQUIRE(s.values.size() == c.groups.size());
      REQUIRE(s.marker.size() == c.groups.size());
      for (size_t g = 0; g < c.groups.size(); ++g) {
        CHECK(std::isfinite(s.values[g]));
        // Hit checks carry each read path's ceiling; misses have none.
        CHECK(std::isfinite(s.marker[g]) == !miss);
      }
    }
    const std::string svg = RenderSvg(c, /*standalone=*/false);
    CHECK(svg.find("arena+pread") != std::string::npos);
    if (miss) {
      CHECK(svg.find(">lower is better ↓</text>") != std::string::npos);
      CHECK(svg.find(">(log scale)</text>") != std::string::npos);
    } else {
      CHECK(svg.find("device ceiling") != std::string::npos);
    }
  }
  CHECK(ratio_charts == 3);
}

}  // namespace
}  // namespace flatbench::report
