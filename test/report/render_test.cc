// The rendered report: section order, every ratio shown even when
// INCONCLUSIVE, the thresholds digest, escaping, and no external reference.
#include <catch2/catch.hpp>
#include <regex>

#include "report/report.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using testing::ResultsBuilder;

RenderedReport Render(const nlohmann::json& doc) {
  ResultSet rs = testing::Parse(doc);
  return RenderReport(ComputeVerdict(rs, testing::Defaults()), rs);
}

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t p = haystack.find(needle); p != std::string::npos;
       p = haystack.find(needle, p + 1)) {
    ++n;
  }
  return n;
}

TEST_CASE("report sections come in the required order", "[report][render]") {
  RenderedReport r = Render(ResultsBuilder().Build());
  const char* order[] = {"## Verdict: GO",
                         "## Validity gates",
                         "## Per-cell results (cold mode)",
                         "## Charts",
                         "## Memory and open time",
                         "## Build time and on-disk size",
                         "## Environment",
                         "## Backend settings",
                         "## Dataset",
                         "## Caveats",
                         "## Thresholds used"};
  size_t last = 0;
  for (const char* heading : order) {
    CAPTURE(heading);
    size_t at = r.markdown.find(heading);
    REQUIRE(at != std::string::npos);
    CHECK(at >= last);
    last = at;
  }
}

TEST_CASE("the HTML is self-contained", "[report][render]") {
  auto doc = ResultsBuilder().Build();
  // Hostile input: URLs and markup in strings the report shows.
  doc["context"]["flatbench.env.device"] =
      "<script src=\"https://evil.example/x.js\"></script>";
  doc["context"]["flatbench.backend.arena.settings"] = {
      {"note", "<link rel=stylesheet href=http://evil.example/a.css>"}};
  RenderedReport r = Render(doc);
  const std::string& h = r.html;
  CHECK(h.rfind("<!DOCTYPE html>", 0) == 0);
  for (const char* banned : {"http://", "https://", "src=", "<link", "@import",
                             "<script", "url(", "href="}) {
    CAPTURE(banned);
    CHECK(h.find(banned) == std::string::npos);
  }
  // Hits and misses x 3 thread counts, 3 ratios, p99.
  CHECK(Count(h, "<svg ") == 10);
  CHECK(h.find("&lt;script src&#61;&quot;https&#58;//") != std::string::npos);
  CHECK(h.find("<style>") != std::string::npos);
}

TEST_CASE("the thresholds digest appears in both reports", "[report][render]") {
  RenderedReport r = Render(ResultsBuilder().Build());
  std::string digest = testing::Defaults().digest;
  CHECK(r.markdown.find(digest) != std::string::npos);
  CHECK(r.html.find(digest) != std::string::npos);
  CHECK(r.markdown.find("XXH3-64") != std::string::npos);
}

TEST_CASE("a smoke run's report says INCONCLUSIVE and shows every ratio",
          "[report][render]") {
  ResultsBuilder b;
  b.scale = "smoke";
  RenderedReport r = Render(b.Build());
  CHECK(r.markdown.find("## Verdict: INCONCLUSIVE") != std::string::npos);
  CHECK(r.markdown.find("| gate scale | **FAILED** | scale smoke") !=
        std::string::npos);
  CHECK(r.markdown.find("named scale smoke, not full") != std::string::npos);
  // 21 ratio rows, each with its value and provisional result.
  CHECK(Count(r.markdown, "pass (provisional)") == 21);
  // Ratio, interval, bound, margin.
  CHECK(Count(r.markdown, "| 2.000 | [1.941, 2.061] | ≥ 1.800 | +11.1% |") ==
        6);  // arena/rocksdb hit.
  CHECK(Count(r.markdown, "| 1.000 | ≥ 0.850 |") == 0);
  CHECK(Count(r.markdown, "| ≥ 0.850 | +17.6% |") == 6);  // arena/lmdb hit.
  CHECK(Count(r.markdown, "| ≤ 1.200 | +16.7% |") == 9);  // miss cost.
  CHECK(r.markdown.find("This run is at smoke scale") != std::string::npos);
}

TEST_CASE("cold hit figures are shown against their own files' device rate",
          "[report][render]") {
  ResultsBuilder b;
  b.device_reads_per_s["rocksdb"] = 22000;
  RenderedReport r = Render(b.Build());
  // arena 20000 x t against its files' 25000 x t; rocksdb 10000 x t
  // against 22000 x t.
  CHECK(r.markdown.find("| account | hit | 8 | arena | 160,000 |") !=
        std::string::npos);
  CHECK(r.markdown.find("| 0.80 (200,000) |") != std::string::npos);
  CHECK(r.markdown.find("| 0.45 (176,000) |") != std::string::npos);
  // The own-file device rate table, with the spread of each row.
  CHECK(r.markdown.find(
            "| account | 8 | 200,000 | 176,000 | 200,000 | 1.136 |") !=
        std::string::npos);
  // The hit chart marks each bar with its own files' rate.
  CHECK(r.charts.at("hits_reads_per_s_8t.svg").find("own files") !=
        std::string::npos);
}

TEST_CASE("preloading, in-flight figures and the schedule are shown",
          "[report][render]") {
  RenderedReport r = Render(ResultsBuilder().Build());
  CHECK(r.markdown.find("| arena | cold | 32 MiB |") != std::string::npos);
  CHECK(r.markdown.find("| 7.6 / 8 |") != std::string::npos);
  CHECK(r.markdown.find("first pass starts") != std::string::npos);
  CHECK(r.markdown.find("rotated by repetition") != std::string::npos);
  // Warm cells show minor faults per read.
  CHECK(r.markdown.find("minor faults/read") != std::string::npos);
}

TEST_CASE("ratio charts draw each interval against the threshold",
          "[report][render]") {
  ResultsBuilder b;
  b.jitter = 0.05;
  b.hit_reads_per_s["arena"] = 18200;
  b.hit_reads_per_s["lmdb"] = 15000;
  RenderedReport r = Render(b.Build());
  const std::string& svg = r.charts.at("ratio_0.svg");
  CHECK(svg.find("within noise") != std::string::npos);
  CHECK(svg.find("#e6a700") != std::string::npos);  // Amber bars.
  CHECK(svg.find("stroke-dasharray") != std::string::npos);
  CHECK(Count(r.markdown, "within noise (median passes)") == 6);
}

TEST_CASE("the per-cell table shows the spread across repetitions",
          "[report][render]") {
  RenderedReport r = Render(ResultsBuilder().Build());
  // arena account hit at 1 thread: 20000 with reps at ±1% and ±2%.
  CHECK(r.markdown.find("| 20,000 | 19,600–20,400 |") != std::string::npos);
}

TEST_CASE("a missing cell shows as missing in the report", "[report][render]") {
  auto doc = ResultsBuilder().Build();
  testing::RemoveEntries(doc, "lmdb/storage/miss-live/cold/threads:8/");
  RenderedReport r = Render(doc);
  CHECK(r.markdown.find("missing: lmdb/storage/miss-live/cold/threads:8") !=
        std::string::npos);
  CHECK(r.markdown.find("FAIL (no data) (provisional)") != std::string::npos);
}

TEST_CASE("the caveats are written down", "[report][render]") {
  RenderedReport r = Render(ResultsBuilder().Build());
  CHECK(r.markdown.find("freshly compacted bulk load") != std::string::npos);
  CHECK(r.markdown.find("cache_index_and_filter_blocks=false") !=
        std::string::npos);
  CHECK(r.markdown.find("cold-lazy") != std::string::npos);
}

TEST_CASE("chart files are standalone SVG referenced from the markdown",
          "[report][render]") {
  RenderedReport r = Render(ResultsBuilder().Build());
  for (const char* name :
       {"hits_reads_per_s_1t.svg", "hits_reads_per_s_8t.svg",
        "hits_reads_per_s_32t.svg", "misses_reads_per_s_1t.svg",
        "misses_reads_per_s_32t.svg", "ratio_0.svg", "ratio_1.svg",
        "ratio_2.svg", "p99.svg"}) {
    CAPTURE(name);
    REQUIRE(r.charts.count(name) == 1);
    CHECK(r.charts.at(name).find("xmlns=") != std::string::npos);
  }
  for (const auto& [name, svg] : r.charts) {
    CHECK(r.markdown.find("](" + name + ")") != std::string::npos);
  }
}

}  // namespace
}  // namespace flatbench::report
