// The rendered report: section order, every ratio shown even when
// INCONCLUSIVE, the thresholds digest, escaping, no external reference,
// and the tables and figures behind every ratio.
#include <catch2/catch.hpp>
#include <set>

#include "report/document/report.h"
#include "report/document/svg.h"
#include "report/numbers.h"
#include "report/prediction/trend_chart.h"
#include "test/crafted_profile.h"
#include "test/doc_table.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"
#include "test/report/svg_text.h"

namespace flatbench::report {
namespace {

using flatbench::testing::Count;
using testing::ResultsBuilder;
using testing::SvgText;
using testing::Texts;

RenderedReport Render(const nlohmann::json& doc) {
  ResultSet rs = testing::Parse(doc);
  return RenderReport(ComputeVerdict(rs, testing::Defaults()), rs);
}

TEST_CASE("report sections come in the required order", "[report][render]") {
  RenderedReport r = Render(ResultsBuilder().Build());
  // The bottom line and the card, what the run says, the ratio charts,
  // the gates and why, the per-cell tables, then everything else.
  const char* order[] = {"## Verdict: GO",
                         "> **The bottom line**",
                         "## What the run says",
                         "## Ratio charts",
                         "## Validity gates",
                         "## Why this verdict",
                         "## Per-cell results (cold mode)",
                         "## Reads/s and latency per backend",
                         "## Caveats",
                         "## Memory and open time",
                         "## Build time and on-disk size",
                         "## Thresholds used",
                         "## Dataset",
                         "## Environment",
                         "## Backend settings"};
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
  for (const char* banned :
       {"http://", "https://", "src=", "<link", "@import", "<script", "url("}) {
    CAPTURE(banned);
    CHECK(h.find(banned) == std::string::npos);
  }
  // Links only within the page (the table of contents); this report knows
  // no folder of the project's documents to link to.
  CHECK(Count(h, "href=") == Count(h, "href=\"#"));
  CHECK(Count(h, "href=\"#") > 10);
  // Reads/s (small multiples), 3 ratios, p99 (small multiples).
  CHECK(Count(h, "<svg ") == 5);
  // Any screen: the viewport is the device's, and charts keep their drawn
  // size and scroll in their figure rather than shrink; tables scroll in
  // their own wrapper.
  CHECK(h.find("<meta name=\"viewport\" content=\"width=device-width, "
               "initial-scale=1\">") != std::string::npos);
  CHECK(h.find("figure { margin: 1em 0; overflow-x: auto; }") !=
        std::string::npos);
  CHECK(h.find("figure svg { max-width: none; }") != std::string::npos);
  CHECK(h.find(".scroll { overflow-x: auto;") != std::string::npos);
  CHECK(Count(h, "<div class=\"scroll\"><table") == Count(h, "<table"));
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
  // 21 ratio rows, each with its provisional result, on card and table.
  CHECK(Count(r.markdown, "pass (provisional)") == 42);
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
  // against 22000 x t; device-side, x 1.123 pages per hit.
  CHECK(r.markdown.find("| account | hit | 8 | arena | 160,000 |") !=
        std::string::npos);
  CHECK(r.markdown.find("| 0.90 | 0.80 (200,000) |") != std::string::npos);
  CHECK(r.markdown.find("| 0.51 | 0.45 (176,000) |") != std::string::npos);
  // The own-file device rate table, with the spread of each row.
  CHECK(r.markdown.find(
            "| account | 8 | 200,000 | 176,000 | 200,000 | 1.136 |") !=
        std::string::npos);
  // The hit bars carry their device limit (own files' rate / pages per
  // hit), named whole in the legend.
  const std::string& svg = r.charts.at("reads_per_s.svg");
  const size_t tip = svg.find("<title>arena, account, 8 threads, hit&#58; ");
  REQUIRE(tip != std::string::npos);
  const std::string label = "device limit (device rate ÷ requests per hit)";
  CHECK(svg.substr(tip, svg.find("</title>", tip) - tip)
            .find("; " + label + " " + Sig(200000 / 1.123046875, 4)) !=
        std::string::npos);
  bool legend = false;
  for (const SvgText& t : Texts(svg, "legend")) {
    legend = legend || t.text == label;
  }
  CHECK(legend);
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

TEST_CASE("a device profile the results recorded is shown with them",
          "[report][render]") {
  auto doc = ResultsBuilder().Build();
  CHECK(Render(doc).markdown.find("Device profile") == std::string::npos);
  doc["context"]["flatbench.device_profile"] =
      flatbench::testing::CraftedDeviceProfile();
  const std::string md = Render(doc).markdown;
  CHECK(md.find("Device profile recorded in results.json (`flatbench device` "
                "on /data, ext4, measured 2026-01-01T00:00:00Z, 2 cpus") !=
        std::string::npos);
  // Reads/s and mean latency per queue depth, 4 to 16 KiB.
  CHECK(md.find("| 1 | 66,667 (15 µs) | 50,000 (20 µs) | 40,000 (25 µs) | "
                "33,333 (30 µs) |") != std::string::npos);
  CHECK(md.find("| 32 | 98,462 (325 µs) |") != std::string::npos);
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
  for (const char* name : {"reads_per_s.svg", "ratio_0.svg", "ratio_1.svg",
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
