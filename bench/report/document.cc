#include "bench/report/document.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "bench/report/document_context.h"
#include "bench/report/format.h"

namespace flatbench::report {
namespace {

using Style = TableCell::Style;

// A table x kind x threads cell, without backend and mode.
struct Row {
  std::string table;
  std::string kind;
  int threads = 0;
  auto operator<=>(const Row&) const = default;
  std::string Label() const {
    return table + " " + kind + " " + std::to_string(threads) + "t";
  }
};

// Rows seen in `mode` for non-device backends, plus, for the gate mode,
// every required one (so a missing cell shows as a row of dashes).
std::vector<Row> Rows(const Verdict& v, const std::string& mode) {
  std::set<Row> rows;
  for (const auto& [key, stats] : v.cells) {
    if (key.mode == mode && key.backend != "device") {
      rows.insert({key.table, key.kind, key.threads});
    }
  }
  if (mode == v.thresholds.gate_mode) {
    for (const auto& [table, kinds] : v.thresholds.cells) {
      for (const auto& kind : kinds) {
        for (int threads : v.thresholds.threads) {
          rows.insert({table, kind, threads});
        }
      }
    }
  }
  return {rows.begin(), rows.end()};
}

const CellStats* Find(const Verdict& v, const std::string& backend,
                      const Row& row, const std::string& mode) {
  auto it = v.cells.find({backend, row.table, row.kind, mode, row.threads});
  if (it == v.cells.end() || it->second.repetitions == 0) return nullptr;
  return &it->second;
}

std::string SpreadText(const Spread& s) {
  return Count(s.min) + "–" + Count(s.max);
}

// "0.93 of device" for cold hit figures; "–" otherwise.
std::string OfDevice(const Verdict& v, const CellStats& s) {
  if (s.cell.kind != "hit" || s.cell.mode == "warm") return "–";
  const CellStats* device = DeviceCell(v.cells, s.cell.threads);
  if (device == nullptr) return "no device row";
  double f = s.reads_per_s.median / device->reads_per_s.median;
  if (!std::isfinite(f)) return "–";
  // Above 1.0 the page cache, not the device, served the reads.
  return (f < 10 ? Fixed(f, 2) : Count(f)) + " of device";
}

// One row per backend per cell: the figures behind every ratio.
Table CellTable(const Verdict& v, const std::string& mode,
                bool with_mode_column) {
  Table t;
  if (with_mode_column) t.header.push_back("mode");
  for (const char* h : {"table", "kind", "threads", "backend",
                        "reads/s (median)", "reads/s min–max", "p99 (median)",
                        "faults/read", "bytes/read", "of device", "reps"}) {
    t.header.push_back(h);
  }
  for (const Row& row : Rows(v, mode)) {
    for (const auto& backend : BackendOrder(v)) {
      std::vector<TableCell> r;
      if (with_mode_column) r.push_back({mode});
      r.push_back({row.table});
      r.push_back({row.kind});
      r.push_back({std::to_string(row.threads)});
      r.push_back({backend});
      const CellStats* s = Find(v, backend, row, mode);
      if (s == nullptr) {
        for (int i = 0; i < 6; ++i) r.push_back({"–"});
        r.push_back({"missing", Style::kFail});
      } else {
        r.push_back({Count(s->reads_per_s.median)});
        r.push_back({SpreadText(s->reads_per_s)});
        r.push_back({Micros(s->lat_p99_ns.median)});
        r.push_back({Sig(s->major_faults_per_read.median)});
        r.push_back({Count(s->bytes_read_per_read.median)});
        r.push_back({OfDevice(v, *s)});
        bool few = s->repetitions < v.thresholds.min_repetitions;
        r.push_back({std::to_string(s->repetitions),
                     few ? Style::kFail : Style::kPlain});
      }
      t.rows.push_back(std::move(r));
    }
  }
  return t;
}

Table DeviceTable(const Verdict& v) {
  Table t;
  t.header = {"threads",      "reads/s (median)", "reads/s min–max",
              "p50 (median)", "p99 (median)",     "reps"};
  for (const auto& [key, s] : v.cells) {
    if (key.backend != "device") continue;
    t.rows.push_back({{std::to_string(key.threads)},
                      {Count(s.reads_per_s.median)},
                      {SpreadText(s.reads_per_s)},
                      {Micros(s.lat_p50_ns.median)},
                      {Micros(s.lat_p99_ns.median)},
                      {std::to_string(s.repetitions)}});
  }
  return t;
}

std::string CheckValue(const RatioCheck& c, double value) {
  if (!c.available) return "–";
  return c.threshold.metric == Metric::kHitReadsPerS
             ? Count(value) + " reads/s"
             : Sig(value * 1e6, 3) + " µs/miss";
}

Table RatioTable(const Verdict& v) {
  Table t;
  t.header = {"table",    "kind",  "threads", "check", v.thresholds.candidate,
              "baseline", "ratio", "bound",   "result"};
  // Cell by cell (table, kind, threads), each cell's checks together.
  std::vector<const RatioCheck*> order;
  for (const auto& c : v.checks) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) {
    return std::tie(a->candidate.table, a->candidate.kind,
                    a->candidate.threads) < std::tie(b->candidate.table,
                                                     b->candidate.kind,
                                                     b->candidate.threads);
  });
  for (const RatioCheck* cp : order) {
    const RatioCheck& c = *cp;
    std::string bound =
        (c.threshold.HigherIsBetter() ? "≥ " : "≤ ") + Ratio(c.threshold.bound);
    std::string result = !c.available ? "FAIL (no data)"
                         : c.passed   ? "pass"
                                      : "FAIL";
    if (!v.Valid()) result += " (provisional)";
    t.rows.push_back(
        {{c.candidate.table},
         {c.candidate.kind},
         {std::to_string(c.candidate.threads)},
         {c.threshold.name},
         {CheckValue(c, c.candidate_value)},
         {c.baseline.backend + " " + CheckValue(c, c.baseline_value)},
         {Ratio(c.ratio)},
         {bound},
         {result, c.passed ? Style::kPass : Style::kFail}});
  }
  return t;
}

Block ChartBlock(BarChart chart, std::string file) {
  Block b;
  b.kind = Block::Kind::kChart;
  b.chart = std::move(chart);
  b.chart_file = std::move(file);
  return b;
}

Section VerdictSection(const Verdict& v) {
  Section s{"Verdict", {}};
  s.blocks.push_back(
      Paragraph(std::string(OutcomeName(v.outcome)) + ". " + v.reason));
  s.blocks.push_back(
      Paragraph("Thresholds: " + v.thresholds.source + ", XXH3-64 " +
                v.thresholds.digest + "; applied to " + v.thresholds.gate_mode +
                " mode at " + v.thresholds.gate_scale +
                " scale, medians over the repetitions of each cell."));
  return s;
}

Section GateSection(const Verdict& v) {
  Section s{"Validity gates", {}};
  Table t;
  t.header = {"gate", "result", "figure"};
  Block details;
  details.kind = Block::Kind::kList;
  for (const auto& g : v.gates) {
    t.rows.push_back({{g.name},
                      {g.passed ? "passed" : "FAILED",
                       g.passed ? Style::kPass : Style::kFail},
                      {g.figure}});
    for (const auto& d : g.details) details.items.push_back(g.name + ": " + d);
  }
  s.blocks.push_back(TableBlock(std::move(t)));
  if (!details.items.empty()) {
    s.blocks.push_back(Paragraph("What the failing gates found:"));
    s.blocks.push_back(std::move(details));
  }
  return s;
}

Section CellSection(const Verdict& v) {
  const std::string& mode = v.thresholds.gate_mode;
  Section s{"Per-cell results (" + mode + " mode)", {}};
  s.blocks.push_back(Paragraph(
      "Each ratio against its threshold. Hit checks compare median reads/s "
      "(higher is better). Miss checks compare the median cost per miss: "
      "threads / reads_per_s of each pass, the mean time one reader thread "
      "spends per miss read (lower is better)."));
  s.blocks.push_back(TableBlock(RatioTable(v)));
  s.blocks.push_back(Paragraph(
      "Each backend's figures per cell: medians over the repetitions, the "
      "min–max spread of reads/s, p99 latency, major faults and bytes read "
      "from storage per read, and cold hit reads/s as a fraction of the "
      "device row at the same thread count."));
  s.blocks.push_back(TableBlock(CellTable(v, mode, false)));
  Table device = DeviceTable(v);
  s.blocks.push_back(Paragraph(
      device.rows.empty()
          ? "No device row was recorded, so no figure is shown as a "
            "fraction of the physical limit."
          : "The device row: 4 KiB O_DIRECT random reads on a scratch file "
            "in the data directory, one read in flight per thread."));
  if (!device.rows.empty()) s.blocks.push_back(TableBlock(std::move(device)));
  std::set<std::string> other;
  for (const auto& [key, st] : v.cells) {
    if (key.mode != mode && key.backend != "device") other.insert(key.mode);
  }
  for (const auto& m : other) {
    s.blocks.push_back(Paragraph(
        "Mode " + m + " (informational; the verdict uses " + mode + " only):"));
    s.blocks.push_back(TableBlock(CellTable(v, m, true)));
  }
  return s;
}

// Median reads/s of each backend (and the device, on hit cells) for the
// cells of one thread count.
BarChart ReadsChart(const Verdict& v, const std::string& mode,
                    const std::vector<Row>& rows, int threads) {
  BarChart c{"Median reads/s at " + std::to_string(threads) +
                 (threads == 1 ? " thread (" : " threads (") + mode + ")",
             "reads/s",
             {},
             {},
             std::nullopt,
             "",
             true};
  for (const Row& r : rows) c.groups.push_back(r.table + " " + r.kind);
  for (const auto& backend : BackendOrder(v)) {
    BarSeries series{backend, {}};
    for (const Row& r : rows) {
      const CellStats* st = Find(v, backend, r, mode);
      series.values.push_back(st ? st->reads_per_s.median : NAN);
    }
    c.series.push_back(std::move(series));
  }
  BarSeries device{"device", {}};
  bool any_device = false;
  for (const Row& r : rows) {
    const CellStats* d =
        r.kind == "hit" ? DeviceCell(v.cells, r.threads) : nullptr;
    any_device = any_device || d != nullptr;
    device.values.push_back(d ? d->reads_per_s.median : NAN);
  }
  if (any_device) c.series.push_back(std::move(device));
  return c;
}

Section ChartSection(const Verdict& v) {
  const std::string& mode = v.thresholds.gate_mode;
  Section s{"Charts", {}};
  std::vector<Row> rows = Rows(v, mode);
  // reads/s grows with the thread count, so one chart per thread count
  // keeps the single-thread bars readable.
  std::set<int> thread_counts;
  for (const Row& r : rows) thread_counts.insert(r.threads);
  for (int threads : thread_counts) {
    std::vector<Row> these;
    for (const Row& r : rows) {
      if (r.threads == threads) these.push_back(r);
    }
    s.blocks.push_back(
        ChartBlock(ReadsChart(v, mode, these, threads),
                   "reads_per_s_" + std::to_string(threads) + "t.svg"));
  }
  BarChart p99{"Median p99 latency per cell (" + mode + ")",
               "µs",
               {},
               {},
               std::nullopt,
               "",
               true};
  for (const Row& r : rows) p99.groups.push_back(r.Label());
  for (const auto& backend : BackendOrder(v)) {
    BarSeries ps{backend, {}};
    for (const Row& r : rows) {
      const CellStats* st = Find(v, backend, r, mode);
      ps.values.push_back(st ? st->lat_p99_ns.median / 1000 : NAN);
    }
    p99.series.push_back(std::move(ps));
  }
  int i = 0;
  for (const auto& th : v.thresholds.checks) {
    BarChart c{th.name + " per cell",
               "ratio",
               {},
               {{"ratio", {}}},
               th.bound,
               (th.HigherIsBetter() ? "≥ " : "≤ ") + Ratio(th.bound),
               th.HigherIsBetter()};
    for (const auto& check : v.checks) {
      if (check.threshold.name != th.name) continue;
      c.groups.push_back(Row{check.candidate.table, check.candidate.kind,
                             check.candidate.threads}
                             .Label());
      c.series[0].values.push_back(check.available ? check.ratio : NAN);
    }
    s.blocks.push_back(
        ChartBlock(std::move(c), "ratio_" + std::to_string(i++) + ".svg"));
  }
  s.blocks.push_back(ChartBlock(std::move(p99), "p99.svg"));
  return s;
}

}  // namespace

std::vector<std::string> BackendOrder(const Verdict& v) {
  std::vector<std::string> out = v.thresholds.Backends();
  std::set<std::string> rest;
  for (const auto& [key, st] : v.cells) {
    if (key.backend != "device") rest.insert(key.backend);
  }
  for (const auto& b : out) rest.erase(b);
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

Document BuildDocument(const Verdict& v, const ResultSet& results) {
  Document d;
  d.title = "flatbench go/no-go report";
  d.outcome = v.outcome;
  d.verdict_line = std::string("Verdict: ") + OutcomeName(v.outcome);
  d.sections.push_back(VerdictSection(v));
  d.sections.push_back(GateSection(v));
  d.sections.push_back(CellSection(v));
  d.sections.push_back(ChartSection(v));
  AddContextSections(v, results, &d);
  return d;
}

}  // namespace flatbench::report
