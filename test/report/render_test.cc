// The rendered report: section order, every ratio shown even when
// INCONCLUSIVE, the thresholds digest, escaping, and no external reference.
#include <catch2/catch.hpp>
#include <regex>

#include "bench/report/report.h"
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
  doc["context"]["flatbench.backend.arena.settings"] =
      R"({"note": "<link rel=stylesheet href=http://evil.example/a.css>"})";
  RenderedReport r = Render(doc);
  const std::string& h = r.html;
  CHECK(h.rfind("<!DOCTYPE html>", 0) == 0);
  for (const char* banned : {"http://", "https://", "src=", "<link", "@import",
                             "<script", "url(", "href="}) {
    CAPTURE(banned);
    CHECK(h.find(banned) == std::string::npos);
  }
  CHECK(Count(h, "<svg ") == 7);  // reads/s x 3 thread counts, 3 ratios, p99.
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
  // 21 ratio rows, each with its value and provisional result.
  CHECK(Count(r.markdown, "pass (provisional)") == 21);
  CHECK(Count(r.markdown, "| 2.000 | ≥ 1.800 |") == 6);  // arena/rocksdb hit.
  CHECK(Count(r.markdown, "| 1.000 | ≥ 0.850 |") == 6);  // arena/lmdb hit.
  CHECK(Count(r.markdown, "| 1.000 | ≤ 1.200 |") == 9);  // miss cost.
  CHECK(r.markdown.find("This run is at smoke scale") != std::string::npos);
}

TEST_CASE("cold hit figures are shown as a fraction of the device row",
          "[report][render]") {
  RenderedReport r = Render(ResultsBuilder().Build());
  // arena 20000 x t against device 25000 x t.
  CHECK(r.markdown.find("| account | hit | 8 | arena | 160,000 |") !=
        std::string::npos);
  CHECK(r.markdown.find("0.80 of device") != std::string::npos);
  CHECK(r.markdown.find("0.40 of device") != std::string::npos);  // rocksdb.
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
       {"reads_per_s_1t.svg", "reads_per_s_8t.svg", "reads_per_s_32t.svg",
        "ratio_0.svg", "ratio_1.svg", "ratio_2.svg", "p99.svg"}) {
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
