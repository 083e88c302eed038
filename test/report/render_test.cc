// The rendered report: section order, every ratio shown even when
// INCONCLUSIVE, the thresholds digest, escaping, no external reference, and
// charts laid out to be read at a glance (small multiples, log axes,
// legends and labels inside the picture).
#include <catch2/catch.hpp>
#include <regex>
#include <set>

#include "report/document/report.h"
#include "report/document/svg.h"
#include "report/format.h"
#include "report/prediction/trend_chart.h"
#include "test/crafted_profile.h"
#include "test/doc_table.h"
#include "test/report/judge.h"
#include "test/report/results_builder.h"

namespace flatbench::report {
namespace {

using flatbench::testing::Count;
using testing::ResultsBuilder;

RenderedReport Render(const nlohmann::json& doc) {
  ResultSet rs = testing::Parse(doc);
  return RenderReport(ComputeVerdict(rs, testing::Defaults()), rs);
}

double Attr(const std::string& tag, const std::string& name) {
  std::smatch m;
  const std::regex re(" " + name + "=\"([-0-9.]+)\"");
  REQUIRE(std::regex_search(tag, m, re));
  return std::stod(m[1]);
}

// The characters a text element shows: entities count as one, UTF-8
// sequences as one.
size_t Shown(const std::string& escaped) {
  const std::string text =
      std::regex_replace(escaped, std::regex("&[#a-z0-9]+;"), "x");
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

struct SvgText {
  double x = 0, y = 0;  // Its anchor, translated if it is turned.
  double font = 11;
  std::string anchor = "start";
  bool turned = false;
  std::string text;
};

// Every <text> of class `cls` in `svg`.
std::vector<SvgText> Texts(const std::string& svg, const std::string& cls) {
  std::vector<SvgText> out;
  const std::regex re("<text ([^>]*class=\"" + cls + "\"[^>]*)>([^<]*)</text>");
  for (std::sregex_iterator it(svg.begin(), svg.end(), re), end; it != end;
       ++it) {
    const std::string tag = " " + (*it)[1].str();
    SvgText t;
    t.text = (*it)[2];
    std::smatch m;
    if (std::regex_search(tag, m,
                          std::regex("translate\\(([-0-9.]+),([-0-9.]+)\\)"))) {
      t.x = std::stod(m[1]);
      t.y = std::stod(m[2]);
      t.turned = true;
    } else {
      t.x = Attr(tag, "x");
      t.y = Attr(tag, "y");
    }
    if (std::regex_search(tag, m, std::regex(" font-size=\"([0-9.]+)\""))) {
      t.font = std::stod(m[1]);
    }
    if (std::regex_search(tag, m, std::regex(" text-anchor=\"([a-z]+)\""))) {
      t.anchor = m[1];
    }
    out.push_back(t);
  }
  return out;
}

double SvgWidth(const std::string& svg) {
  return Attr(svg.substr(0, svg.find('>')), "width");
}
double SvgHeight(const std::string& svg) {
  return Attr(svg.substr(0, svg.find('>')), "height");
}

// Every flat legend, title and group label lies wholly inside the picture
// (its width estimated at kCharEm per character); turned group labels
// (45 degrees down to the right) too.
void CheckTextInside(const std::string& svg, bool page_wide = true) {
  const double width = SvgWidth(svg), height = SvgHeight(svg);
  if (page_wide) CHECK(width >= kChartWidth);
  for (const char* cls : {"legend", "title", "group-label", "column-label"}) {
    for (const SvgText& t : Texts(svg, cls)) {
      CAPTURE(cls, t.text, t.x, width);
      const double w = static_cast<double>(Shown(t.text)) * kCharEm * t.font;
      if (t.turned) {
        CHECK(t.x + 0.7072 * w <= width);
        CHECK(t.y + 0.7072 * w <= height);
        continue;
      }
      const double left = t.anchor == "middle" ? t.x - w / 2
                          : t.anchor == "end"  ? t.x - w
                                               : t.x;
      CHECK(left >= 0);
      CHECK(left + w <= width);
      CHECK(t.y <= height);
    }
  }
}

// The tooltip-titled bar whose title starts with `prefix`: its height.
double BarHeight(const std::string& svg, const std::string& prefix) {
  const size_t at = svg.find("<title>" + prefix);
  REQUIRE(at != std::string::npos);
  const size_t open = svg.rfind("<rect ", at);
  return Attr(svg.substr(open, at - open), "height");
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
  for (const char* banned :
       {"http://", "https://", "src=", "<link", "@import", "<script", "url("}) {
    CAPTURE(banned);
    CHECK(h.find(banned) == std::string::npos);
  }
  CHECK_FALSE(std::regex_search(h, std::regex("href=\"[^#]")));  // In-page.
  // Reads/s (small multiples), 3 ratios, p99 (small multiples).
  CHECK(Count(h, "<svg ") == 5);
  // Wide charts shrink to the page rather than scroll.
  CHECK(h.find("figure svg[viewBox] { max-width: 100%; height: auto; }") !=
        std::string::npos);
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
  const std::string label = "device limit (device rate ÷ pages per hit)";
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

TEST_CASE("reads/s and p99 are small multiples: tables by thread counts",
          "[report][render]") {
  RenderedReport r = Render(ResultsBuilder().Build());
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
  RenderedReport r = Render(b.Build());
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
  RenderedReport r = Render(b.Build());
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
