// The report's charts: hits and misses on their own axes (hit reads/s are
// a tenth of miss reads/s or less, and the verdict is mostly about hits),
// each cold hit bar with its own files' device rate as a marker, ratios
// with their intervals against the threshold line, and p99 latency on a
// log axis.
#include <set>

#include "report/document_context.h"
#include "report/document_parts.h"
#include "report/format.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

std::string ThreadsText(int threads) {
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// Median reads/s of each backend for `rows` (all hits or all misses of
// one thread count); cold hit bars carry their own-file device rate.
BarChart ReadsChart(const Verdict& v, const std::string& mode,
                    const std::vector<Row>& rows, bool hits, int threads) {
  BarChart c;
  c.title = std::string(hits ? "Hit" : "Miss") + " reads/s at " +
            ThreadsText(threads) + " (" + mode + ", median)";
  c.y_label = "reads/s";
  const bool markers = hits && r::IsColdMode(mode);
  if (markers) c.marker_label = "own files' device rate";
  for (const Row& row : rows) c.groups.push_back(row.table + " " + row.kind);
  for (const auto& backend : BackendOrder(v)) {
    BarSeries series{BackendLabel(v, backend), {}, {}, {}, {}};
    for (const Row& row : rows) {
      const CellStats* st = Find(v, backend, row, mode);
      series.values.push_back(st ? st->reads_per_s.median : NAN);
      series.low.push_back(st ? st->reads_per_s.min : NAN);
      series.high.push_back(st ? st->reads_per_s.max : NAN);
      if (markers)
        series.marker.push_back(OwnDeviceRate(v, backend, row, mode));
    }
    c.series.push_back(std::move(series));
  }
  return c;
}

BarChart RatioChart(const Verdict& v, const RatioThreshold& th) {
  BarChart c;
  c.title = th.name + " per cell, with 95% intervals";
  c.y_label = "ratio";
  c.series = {{"ratio", {}, {}, {}, {}}};
  c.threshold = th.bound;
  c.threshold_label = (th.HigherIsBetter() ? "≥ " : "≤ ") + Ratio(th.bound);
  c.higher_is_better = th.HigherIsBetter();
  c.color_noise = true;
  for (const auto& check : v.checks) {
    if (check.threshold.name != th.name) continue;
    c.groups.push_back(Row{check.candidate.table, check.candidate.kind,
                           check.candidate.threads}
                           .Label());
    c.series[0].values.push_back(check.available ? check.ratio : NAN);
    c.series[0].low.push_back(check.interval.low);
    c.series[0].high.push_back(check.interval.high);
  }
  return c;
}

}  // namespace

Section ChartSection(const Verdict& v) {
  const std::string& mode = v.thresholds.gate_mode;
  Section s{"Charts", {}};
  s.blocks.push_back(Paragraph(
      "Bars are medians over the repetitions, whiskers the min–max spread. "
      "On cold hit charts the black tick across each bar is that backend's "
      "own files' device rate: a bar near its tick has little left to gain "
      "from the format. Ratio charts draw each check's 95% bootstrap "
      "interval against the threshold line; amber bars are within noise."));
  std::vector<Row> rows = Rows(v, mode);
  std::set<int> thread_counts;
  for (const Row& row : rows) thread_counts.insert(row.threads);
  for (bool hits : {true, false}) {
    for (int threads : thread_counts) {
      std::vector<Row> these;
      for (const Row& row : rows) {
        if (row.threads == threads && (row.kind == r::kKindHit) == hits) {
          these.push_back(row);
        }
      }
      if (these.empty()) continue;
      s.blocks.push_back(ChartBlock(ReadsChart(v, mode, these, hits, threads),
                                    std::string(hits ? "hits" : "misses") +
                                        "_reads_per_s_" +
                                        std::to_string(threads) + "t.svg"));
    }
  }
  int i = 0;
  for (const auto& th : v.thresholds.checks) {
    s.blocks.push_back(
        ChartBlock(RatioChart(v, th), "ratio_" + std::to_string(i++) + ".svg"));
  }
  BarChart p99;
  p99.title = "Median p99 latency per cell (" + mode + ")";
  p99.y_label = "µs";
  p99.log_scale = true;
  for (const Row& row : rows) p99.groups.push_back(row.Label());
  for (const auto& backend : BackendOrder(v)) {
    BarSeries ps{BackendLabel(v, backend), {}, {}, {}, {}};
    for (const Row& row : rows) {
      const CellStats* st = Find(v, backend, row, mode);
      ps.values.push_back(st ? st->Of(r::kLatP99Ns).median / 1000 : NAN);
    }
    p99.series.push_back(std::move(ps));
  }
  s.blocks.push_back(ChartBlock(std::move(p99), "p99.svg"));
  return s;
}

}  // namespace flatbench::report
