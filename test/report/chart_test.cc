// The report's charts: small multiples on one log axis, ratio charts that
// judge (bars coloured by outcome against the bound, the axis naming the
// ratio and its direction, whiskers over the ceiling's tick), legends
// that name only the series with bars, and labels inside the picture.
#include <catch2/catch.hpp>
#include <set>

#include "report/document/report.h"
#include "report/document/svg.h"
#include "report/prediction/trend_chart.h"
#include "test/doc_table.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"
#include "test/report/svg_text.h"

namespace flatbench::report {
namespace {

using flatbench::testing::Count;
using testing::BarHeight;
using testing::CheckTextInside;
using testing::ResultsBuilder;
using testing::SvgText;
using testing::Texts;

RenderedReport RenderRun(const nlohmann::json& doc) {
  ResultSet rs = testing::Parse(doc);
  return RenderReport(ComputeVerdict(rs, testing::Defaults()), rs);
}

TEST_CASE("ratio charts draw each interval against the threshold",
          "[report][render]") {
  ResultsBuilder b;
  b.jitter = 0.05;
  b.hit_reads_per_s["arena"] = 18200;
  b.hit_reads_per_s["lmdb"] = 15000;
  RenderedReport r = RenderRun(b.Build());
  const std::string& svg = r.charts.at("ratio_0.svg");
  CHECK(svg.find("within noise") != std::string::npos);
  CHECK(svg.find("#e6a700") != std::string::npos);  // Amber bars.
  CHECK(svg.find("stroke-dasharray") != std::string::npos);
  CHECK(Count(r.markdown, "within noise (median passes)") == 6);
}

// The fill of the bar whose tooltip starts with `prefix`.
std::string BarFill(const std::string& svg, const std::string& prefix) {
  const size_t at = svg.find("<title>" + prefix);
  REQUIRE(at != std::string::npos);
  const size_t open = svg.rfind("<rect ", at);
  const std::string tag = svg.substr(open, at - open);
  const size_t fill = tag.find("fill=\"");
  REQUIRE(fill != std::string::npos);
  return tag.substr(fill + 6, 7);
}

TEST_CASE("ratio bars are coloured by their outcome on every read path",
          "[report][render]") {
  ResultsBuilder b;
  b.jitter = 0.05;
  b.backends.push_back("arena+cache");
  b.hit_reads_per_s["arena+cache"] = 12000;  // 1.2 x RocksDB: fails.
  b.miss_reads_per_s["arena+cache"] = 100000;
  b.device_reads_per_s["arena+cache"] = 25000;
  b.hit_reads_per_s["arena"] = 18200;  // 1.82 x RocksDB: within noise.
  b.hit_reads_per_s["lmdb"] = 15000;   // 1.21 x LMDB: passes.
  const RenderedReport r = RenderRun(b.Build());
  const std::string& rocks = r.charts.at("ratio_0.svg");
  const std::string& lmdb = r.charts.at("ratio_1.svg");
  CHECK(BarFill(rocks, "arena (mmap), account hit 8t") == "#e6a700");
  CHECK(BarFill(rocks, "arena+cache, account hit 8t") == "#d62728");
  CHECK(BarFill(lmdb, "arena (mmap), account hit 8t") == "#2ca02c");
  // The read paths are told apart by their bars' style, shown in the
  // legend in grey beside the outcomes.
  const size_t cache = rocks.find("<title>arena+cache, account hit 8t");
  CHECK(rocks.substr(rocks.rfind("<rect ", cache), 200)
            .find("fill-opacity=\"0.35\"") != std::string::npos);
  std::set<std::string> legend;
  for (const SvgText& t : Texts(rocks, "legend")) legend.insert(t.text);
  for (const char* item : {"passes", "fails", "arena (mmap)", "arena+cache"}) {
    CAPTURE(item);
    CHECK(legend.count(item) == 1);
  }
}

TEST_CASE("a legend names only series with bars; a missing bar is marked",
          "[report][render]") {
  BarChart c;
  c.title = "Scans/s";
  c.y_label = "scans/s";
  c.groups = {"account 1t", "account 8t"};
  c.series = {{"arena", {100, 200}, {}, {}, {}},
              {"fs (reference)", {NAN, NAN}, {}, {}, {}},
              {"sqlite (reference)", {50, NAN}, {}, {}, {}}};
  const std::string svg = RenderSvg(c, /*standalone=*/false);
  std::set<std::string> legend;
  for (const SvgText& t : Texts(svg, "legend")) legend.insert(t.text);
  CHECK(legend == std::set<std::string>{"arena", "sqlite (reference)"});
  CHECK(svg.find("fs (reference)") == std::string::npos);
  // sqlite has no bar at 8 threads, where arena has one.
  CHECK(Count(svg, ">n/a<title>") == 1);
  CHECK(svg.find("sqlite (reference), account 8t&#58; no bar") !=
        std::string::npos);
  // Colours stay the series': sqlite keeps the third colour.
  CHECK(svg.find("fill=\"#2ca02c\"><title>sqlite") != std::string::npos);
}

TEST_CASE("a marker is drawn under its bar's whisker", "[report][render]") {
  BarChart c;
  c.title = "ratio";
  c.y_label = "ratio";
  c.groups = {"a"};
  // The marker sits on the whisker's top: the cap must still show.
  c.series = {{"arena", {1.0}, {0.9}, {1.2}, {1.2}}};
  c.marker_label = "one-page ceiling";
  const std::string svg = RenderSvg(c, /*standalone=*/false);
  const size_t marker = svg.find("class=\"marker\"");
  REQUIRE(marker != std::string::npos);
  CHECK(svg.find("stroke=\"#6a3d9a\"") < marker);
  // The whisker, over a white halo, comes after the marker.
  const size_t halo = svg.find("stroke=\"#ffffff\" stroke-width=\"3.2\"");
  const size_t whisker = svg.find("stroke=\"#000000\" stroke-width=\"1.2\"");
  CHECK(halo > marker);
  CHECK(whisker > halo);
}

TEST_CASE("reads/s and p99 are small multiples: tables by thread counts",
          "[report][render]") {
  RenderedReport r = RenderRun(ResultsBuilder().Build());
  CHECK(r.charts.size() == 5);
  for (const char* name : {"reads_per_s.svg", "p99.svg"}) {
    CAPTURE(name);
    const std::string& svg = r.charts.at(name);
    // Columns: thread counts, left to right on one line.
    std::vector<SvgText> cols = Texts(svg, "column-label");
    REQUIRE(cols.size() == 3);
    CHECK(cols[0].text == "1 thread");
    CHECK(cols[1].text == "8 threads");
    CHECK(cols[2].text == "32 threads");
    CHECK(cols[0].x < cols[1].x);
    CHECK(cols[1].x < cols[2].x);
    CHECK(cols[0].y == cols[2].y);
    // Rows: tables, top to bottom.
    std::vector<SvgText> rows = Texts(svg, "row-label");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].text == "account");
    CHECK(rows[1].text == "storage");
    CHECK(rows[0].y < rows[1].y);
    // One shared axis: tick labels only left of the first column.
    for (const SvgText& t : Texts(svg, "tick")) CHECK(t.x < cols[0].x);
    // Every backend in every panel, by kind.
    for (const char* cell : {"arena, account, 1 thread, hit&#58; ",
                             "lmdb, account, 32 threads, "
                             "miss-absent&#58; ",
                             "rocksdb, storage, 8 threads, miss-live&#58; "}) {
      CAPTURE(cell);
      CHECK(svg.find("<title>" + std::string(cell)) != std::string::npos);
    }
    CheckTextInside(svg);
  }
}

TEST_CASE("a backend a hundred times slower keeps a visible bar",
          "[report][render]") {
  ResultsBuilder b;
  b.miss_reads_per_s["lmdb"] = 1000;  // A hundredth of the arena's.
  RenderedReport r = RenderRun(b.Build());
  const std::string& svg = r.charts.at("reads_per_s.svg");
  // Log axis in decades.
  std::set<std::string> ticks;
  for (const SvgText& t : Texts(svg, "tick")) ticks.insert(t.text);
  for (const char* decade : {"1000", "10k", "100k", "1M"}) {
    CAPTURE(decade);
    CHECK(ticks.count(decade) == 1);
  }
  CHECK(svg.find("reads/s (log scale)") != std::string::npos);
  // On a linear axis LMDB's bar would be a hundredth of the arena's.
  const double lmdb =
      BarHeight(svg, "lmdb, account, 8 threads, miss-absent&#58;");
  const double arena =
      BarHeight(svg, "arena, account, 8 threads, miss-absent&#58;");
  CHECK(lmdb >= 0.3 * arena);
  CHECK(lmdb < arena);
}

TEST_CASE("legends wrap inside the chart and long labels get room",
          "[report][render]") {
  BarChart c;
  c.title = "many backends";
  c.y_label = "reads/s";
  c.marker_label = "own files' device rate";
  for (int g = 0; g < 40; ++g) {
    c.groups.push_back("storage miss-absent " + std::to_string(g) + "t");
  }
  for (int s = 0; s < 8; ++s) {
    BarSeries series;
    series.name = "backend " + std::to_string(s) +
                  " with a long descriptive name (reference)";
    series.values.assign(c.groups.size(), 1000.0 * (s + 1));
    series.marker.assign(c.groups.size(), 900.0);
    c.series.push_back(series);
  }
  const std::string svg = RenderSvg(c, /*standalone=*/true);
  std::vector<SvgText> legend = Texts(svg, "legend");
  REQUIRE(legend.size() == 9);
  CHECK(legend.back().text == "own files&#39; device rate");
  std::set<double> lines;
  for (const SvgText& t : legend) lines.insert(t.y);
  CHECK(lines.size() >= 2);  // Wrapped, not cut off.
  // 40 groups of 8 bars: the labels are turned, and every one fits.
  std::vector<SvgText> labels = Texts(svg, "group-label");
  REQUIRE(labels.size() == 40);
  CHECK(labels.back().turned);
  CheckTextInside(svg);

  // A short chart keeps its labels flat, on two lines where one is too
  // long for the group.
  BarChart few;
  few.title = "ratios";
  few.groups = {"account miss-absent 32t", "storage miss-live 1t"};
  few.series = {{"ratio", {0.5, 0.7}, {}, {}, {}}};
  few.threshold = 1.2;
  few.higher_is_better = false;
  const std::string flat = RenderSvg(few, /*standalone=*/true);
  for (const SvgText& t : Texts(flat, "group-label")) CHECK_FALSE(t.turned);
  CheckTextInside(flat);
}

TEST_CASE("every chart of the report fits the page's width",
          "[report][render]") {
  ResultsBuilder b;
  b.backends.push_back("postgres");
  b.hit_reads_per_s["postgres"] = 2000;
  b.miss_reads_per_s["postgres"] = 3000;
  b.device_reads_per_s["postgres"] = 25000;
  b.scan_cells = true;
  b.startup_cells = true;
  RenderedReport r = RenderRun(b.Build());
  CHECK(r.charts.count("startup.svg") == 1);
  CHECK(r.charts.count("scans_per_s_cold.svg") == 1);
  for (const auto& [name, svg] : r.charts) {
    CAPTURE(name);
    CheckTextInside(svg);
  }
}

TEST_CASE("a trend chart's legend wraps inside it", "[report][render]") {
  TrendChart c;
  c.title = "arena/rocksdb cold hit reads/s";
  c.y_label = "ratio";
  c.target_x = 1.2e9;
  c.bound = 1.8;
  for (int k = 0; k < 5; ++k) {
    TrendSeries s;
    s.name = "account hit " + std::to_string(1 << (2 * k)) + " threads";
    s.x = {1e6, 1e7};
    s.y = {2.0, 1.9};
    s.low = {1.9, 1.8};
    s.high = {2.1, 2.0};
    c.series.push_back(s);
  }
  const std::string svg = RenderTrendSvg(c, /*standalone=*/true);
  std::vector<SvgText> legend = Texts(svg, "legend");
  REQUIRE(legend.size() == 7);       // Five series and the key's two lines.
  CHECK(legend[0].y < legend[4].y);  // Wrapped.
  CheckTextInside(svg, /*page_wide=*/false);
}

}  // namespace
}  // namespace flatbench::report
