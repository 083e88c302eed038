// The report's charts. Reads/s and p99 latency are small multiples: one
// figure each, rows by table and columns by thread count, every panel on
// one shared log axis, so a backend's bar compares with any other at a
// glance and a backend ten or a hundred times slower (LMDB's misses, a
// reference row) still shows. Each cold hit bar carries its device limit
// as a tick (its own files' device rate over its pages per hit). Each
// check's ratios are drawn with their intervals against the threshold
// line.
#include <algorithm>
#include <functional>
#include <set>

#include "report/document/document_context.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

std::string ThreadsText(int threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// One value per backend for a row; the panel's series are the backends in
// `backends` order.
using CellValue = std::function<double(const CellStats&)>;

// The hits/s at which a cold hit cell would use its own files' whole
// device rate at the read requests per hit it made: its median hits/s over its
// device-side efficiency, so the bar over the tick is that efficiency.
double DeviceLimit(const CellStats& st) {
  const double e = st.device_side.median;
  return e > 0 ? st.reads_per_s.median / e : NAN;
}

// Rows: tables; columns: thread counts with any value; each panel's groups:
// the table's kinds. `value` gives a cell's bar, `low`/`high` its whisker
// (may be empty); cold hit bars get their device limit (DeviceLimit) when
// `markers`.
BarGrid CellGrid(const Verdict& v, const std::string& mode,
                 const std::vector<Row>& rows, const CellValue& value,
                 const CellValue& low, const CellValue& high, bool markers) {
  BarGrid grid;
  const auto backends = BackendOrder(v);
  for (const auto& backend : backends) {
    grid.series_names.push_back(BackendLabel(v, backend));
  }
  std::vector<std::string> tables, kinds;
  std::set<int> thread_counts;
  for (const Row& row : rows) {
    if (std::find(tables.begin(), tables.end(), row.table) == tables.end()) {
      tables.push_back(row.table);
    }
    bool any = false;
    for (const auto& backend : backends) {
      any = any || Find(v, backend, row, mode) != nullptr;
    }
    if (any) thread_counts.insert(row.threads);
  }
  for (int threads : thread_counts) {
    grid.column_labels.push_back(ThreadsText(threads));
  }
  for (const auto& table : tables) {
    grid.row_labels.push_back(table);
    std::vector<BarChart> panels;
    for (int threads : thread_counts) {
      BarChart p;
      std::vector<Row> these;
      for (const Row& row : rows) {
        if (row.table == table && row.threads == threads) {
          these.push_back(row);
          p.groups.push_back(row.kind);
        }
      }
      for (const auto& backend : backends) {
        BarSeries series{BackendLabel(v, backend), {}, {}, {}, {}};
        for (const Row& row : these) {
          const CellStats* st = Find(v, backend, row, mode);
          series.values.push_back(st ? value(*st) : NAN);
          if (low) series.low.push_back(st ? low(*st) : NAN);
          if (high) series.high.push_back(st ? high(*st) : NAN);
          const bool tick = markers && row.kind == r::kKindHit;
          series.marker.push_back(tick && st ? DeviceLimit(*st) : NAN);
        }
        p.series.push_back(std::move(series));
      }
      panels.push_back(std::move(p));
    }
    grid.panels.push_back(std::move(panels));
  }
  return grid;
}

// A chart block drawn from a grid (the HTML inline, the file standalone).
Block GridBlock(const BarGrid& grid, std::string file) {
  Block b;
  b.kind = Block::Kind::kChart;
  b.chart.title = grid.title;
  b.chart_file = std::move(file);
  b.svg_inline = RenderSvg(grid, /*standalone=*/false);
  b.svg_standalone = RenderSvg(grid, /*standalone=*/true);
  return b;
}

// Every judged read path's ratios for one check, side by side per cell,
// with their intervals, the bound as a dashed line and, on hit checks,
// each read path's device ceiling as a tick. Miss costs sit near a
// hundredth of their bound, so their chart has a log axis.
BarChart RatioChart(const Verdict& v, const RatioThreshold& th) {
  BarChart c;
  const bool hit = th.metric == Metric::kHitReadsPerS;
  c.title = th.name + " per cell and read path, with 95% intervals";
  // The ratio the axis shows and which way is better.
  c.y_label =
      v.thresholds.candidate + " ÷ " + th.baseline +
      (hit ? " reads/s" : " cost per miss") + "\n" +
      (th.HigherIsBetter() ? "higher is better ↑" : "lower is better ↓");
  c.threshold = th.bound;
  c.threshold_label = "bound " +
                      std::string(th.HigherIsBetter() ? "≥ " : "≤ ") +
                      Ratio(th.bound);
  c.higher_is_better = th.HigherIsBetter();
  c.color_noise = true;
  c.judge = true;
  c.log_scale = !hit;
  if (hit) c.marker_label = "device ceiling";
  std::vector<const Verdict*> paths = {&v};
  for (const auto& variant : v.variants) paths.push_back(&variant);
  for (const Verdict* p : paths) {
    c.series.push_back(
        {CandidateLabel(p->thresholds.candidate), {}, {}, {}, {}});
  }
  for (size_t i = 0; i < v.checks.size(); ++i) {
    const RatioCheck& check = v.checks[i];
    if (check.threshold.name != th.name) continue;
    c.groups.push_back(Row{check.candidate.table, check.candidate.kind,
                           check.candidate.threads}
                           .Label());
    for (size_t s = 0; s < paths.size(); ++s) {
      // Every read path is judged by the same checks in the same order.
      const RatioCheck* pc =
          i < paths[s]->checks.size() ? &paths[s]->checks[i] : nullptr;
      const bool have = pc != nullptr && pc->available;
      BarSeries& series = c.series[s];
      series.values.push_back(have ? pc->ratio : NAN);
      series.low.push_back(have ? pc->interval.low : NAN);
      series.high.push_back(have ? pc->interval.high : NAN);
      series.marker.push_back(pc != nullptr && pc->ceiling.available
                                  ? pc->ceiling.device.ratio
                                  : NAN);
    }
  }
  return c;
}

}  // namespace

Section RatioChartSection(const Verdict& v) {
  Section s{"Ratio charts", {}};
  s.blocks.push_back(Paragraph(
      "Each check's ratio per cell, every judged read path side by side, "
      "with its 95% bootstrap interval (whiskers) against the bound "
      "(dashed). A bar is green when it passes clear of the bound, amber "
      "within noise (its interval contains the bound) and red when it "
      "fails clear of it. On hit checks the purple tick is the read path's "
      "device ceiling. Miss-cost ratios lie far below their bound, so "
      "their chart has a log axis."));
  int i = 0;
  for (const auto& th : v.thresholds.checks) {
    s.blocks.push_back(
        ChartBlock(RatioChart(v, th), "ratio_" + std::to_string(i++) + ".svg"));
  }
  return s;
}

Section CellChartSection(const Verdict& v) {
  const std::string& mode = v.thresholds.gate_mode;
  Section s{"Reads/s and latency per backend", {}};
  s.blocks.push_back(Paragraph(
      "Reads/s and p99 latency are small multiples: rows by table, columns "
      "by thread count, every panel on one log axis, so equal heights are "
      "equal values and equal gaps equal ratios anywhere in the figure. "
      "Bars are medians over the repetitions, whiskers the min–max "
      "spread."));
  s.blocks.push_back(Paragraph(
      "On cold hits the tick across each bar is that backend's device "
      "limit: its own files' device rate over the device read requests it "
      "made per hit, so the bar's height over the tick is its device-side "
      "efficiency, and a bar near its tick kept the device busy. A backend "
      "without a bar in a panel is marked n/a there."));
  const std::vector<Row> rows = Rows(v, mode);
  BarGrid reads = CellGrid(
      v, mode, rows, [](const CellStats& st) { return st.reads_per_s.median; },
      [](const CellStats& st) { return st.reads_per_s.min; },
      [](const CellStats& st) { return st.reads_per_s.max; },
      r::IsColdMode(mode));
  reads.title = "Reads/s per backend (" + mode + ", median)";
  reads.y_label = "reads/s";
  reads.log_scale = true;
  if (r::IsColdMode(mode)) {
    reads.marker_label = "device limit (device rate ÷ requests per hit)";
  }
  s.blocks.push_back(GridBlock(reads, "reads_per_s.svg"));
  BarGrid p99 = CellGrid(
      v, mode, rows,
      [](const CellStats& st) { return st.Of(r::kLatP99Ns).median / 1000; },
      nullptr, nullptr, /*markers=*/false);
  p99.title = "Median p99 latency per backend (" + mode + ")";
  p99.y_label = "p99 latency, µs";
  p99.log_scale = true;
  s.blocks.push_back(GridBlock(p99, "p99.svg"));
  return s;
}

}  // namespace flatbench::report
