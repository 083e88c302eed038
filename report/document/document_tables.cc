// The report's tables: ratios with intervals, per-cell figures, device
// rates, preloading and the schedule.
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "report/document/document_context.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"
#include "report/verdict/cells.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using Style = TableCell::Style;

std::string SpreadText(const Spread& s) {
  return Count(s.min) + "–" + Count(s.max);
}

std::string CheckValue(const RatioCheck& c, double value) {
  if (!c.available) return "–";
  return c.threshold.metric == Metric::kHitReadsPerS
             ? Count(value) + " reads/s"
             : Sig(value * 1e6, 3) + " µs/miss";
}

// "0.93": a figure against the own files' device rate.
std::string Efficiency(double f) {
  if (!std::isfinite(f)) return "–";
  return f < 10 ? Fixed(f, 2) : Count(f);
}

// The check's outcome, marked provisional on a run that is not valid, and
// what its device ceiling says of it.
std::string ResultText(const RatioCheck& c, bool valid) {
  std::string result = !c.available     ? "FAIL (no data)"
                       : c.within_noise ? "within noise"
                       : c.passed       ? "pass"
                                        : "FAIL";
  if (c.available && c.within_noise) {
    result += c.passed ? " (median passes)" : " (median fails)";
  }
  if (!valid) result += " (provisional)";
  if (c.ceiling.beyond) {
    result += "; beyond this device's limit for any one-page format";
  }
  if (!c.ceiling.held) {
    result += "; the device ceiling did not hold (ratio " + Ratio(c.ratio) +
              " above its interval)";
  }
  return result;
}

}  // namespace

std::vector<Row> Rows(const Verdict& v, const std::string& mode) {
  std::set<Row> rows;
  for (const auto& [key, stats] : v.cells) {
    if (key.mode == mode && r::IsReadKind(key.kind)) {
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
  return MeasuredCell(v.cells,
                      {backend, row.table, row.kind, mode, row.threads});
}

double OwnDeviceRate(const Verdict& v, const std::string& backend,
                     const Row& row, const std::string& mode) {
  return DeviceRate(v.cells, backend, row.table, mode, row.threads);
}

Block ChartBlock(BarChart chart, std::string file) {
  Block b;
  b.kind = Block::Kind::kChart;
  b.chart = std::move(chart);
  b.chart_file = std::move(file);
  return b;
}

Table RatioTable(const Verdict& v) {
  const std::string path = CandidateLabel(v.thresholds.candidate);
  Table t;
  t.header = {"table",
              "kind",
              "threads",
              "check",
              v.thresholds.candidate,
              "baseline",
              "ratio",
              "95% interval",
              "bound",
              "margin",
              "device ceiling, " + path + " [95%]",
              "own ceiling, " + path + " (its CPU per read) [95%]",
              "result"};
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
    std::string result = ResultText(c, v.Valid());
    Style style = c.passed && !c.within_noise ? Style::kPass : Style::kFail;
    // Built by appending: g++ 12 misreads a prepend to a temporary here as
    // an overlapping copy (-Wrestrict).
    std::string interval = "–";
    if (c.available) {
      interval = "[";
      interval.append(Ratio(c.interval.low))
          .append(", ")
          .append(Ratio(c.interval.high))
          .append("]");
    }
    std::string device = "–", own = "–";
    if (c.ceiling.available) {
      device = CeilingFigureText(c.ceiling.device);
      own = c.ceiling.own_is_measured ? std::string(kOwnIsMeasured)
                                      : CeilingFigureText(c.ceiling.own);
    } else if (!c.threshold.HigherIsBetter()) {
      device = own = "none (a miss can be answered from memory)";
    }
    std::string margin = c.available && c.Margin() > 0 ? "+" : "";
    margin.append(c.available ? Percent(c.Margin()) : "–");
    t.rows.push_back(
        {{c.candidate.table},
         {c.candidate.kind},
         {std::to_string(c.candidate.threads)},
         {c.threshold.name},
         {CheckValue(c, c.candidate_value)},
         {c.baseline.backend + " " + CheckValue(c, c.baseline_value)},
         {Ratio(c.ratio)},
         {interval},
         {bound},
         {margin},
         {device},
         {own},
         {result, style}});
  }
  return t;
}

Table CellTable(const Verdict& v, const std::string& mode,
                bool with_mode_column) {
  Table t;
  const bool cold = r::IsColdMode(mode);
  if (with_mode_column) t.header.push_back("mode");
  for (const char* h :
       {"table", "kind", "threads", "backend", "reads/s (median)",
        "reads/s min–max", "p99 (median)", "major faults/read", "bytes/read",
        "in flight mean / peak"}) {
    t.header.push_back(h);
  }
  if (cold) {
    t.header.push_back("device-side efficiency");
    t.header.push_back("hit rate ÷ device rate (own files' device rate)");
  } else {
    t.header.push_back("minor faults/read");
  }
  t.header.push_back("reps");
  const size_t figures = t.header.size() - (with_mode_column ? 6 : 5);
  for (const Row& row : Rows(v, mode)) {
    for (const auto& backend : BackendOrder(v)) {
      std::vector<TableCell> c;
      if (with_mode_column) c.push_back({mode});
      c.push_back({row.table});
      c.push_back({row.kind});
      c.push_back({std::to_string(row.threads)});
      c.push_back({BackendLabel(v, backend)});
      const CellStats* s = Find(v, backend, row, mode);
      if (s == nullptr) {
        for (size_t i = 0; i < figures; ++i) c.push_back({"–"});
        c.push_back({"missing", Style::kFail});
        t.rows.push_back(std::move(c));
        continue;
      }
      c.push_back({Count(s->reads_per_s.median)});
      c.push_back({SpreadText(s->reads_per_s)});
      c.push_back({Micros(s->Of(r::kLatP99Ns).median)});
      c.push_back({Sig(s->Of(r::kMajorFaultsPerRead).median)});
      c.push_back({Count(s->Of(r::kBytesReadPerRead).median)});
      c.push_back({Sig(s->Of(r::kMeanInflight).median, 3) + " / " +
                   Sig(s->Of(r::kPeakInflight).median, 3)});
      if (cold && row.kind == r::kKindHit) {
        double device = OwnDeviceRate(v, backend, row, mode);
        c.push_back({Efficiency(s->device_side.median)});
        c.push_back({Efficiency(s->Of(r::kIoEfficiency).median) + " (" +
                     Count(device) + ")"});
      } else if (cold) {
        c.push_back({"–"});
        c.push_back({"–"});
      } else {
        c.push_back({Sig(s->Of(r::kMinorFaultsPerRead).median)});
      }
      bool few = s->repetitions < v.thresholds.min_repetitions;
      c.push_back(
          {std::to_string(s->repetitions), few ? Style::kFail : Style::kPlain});
      t.rows.push_back(std::move(c));
    }
  }
  return t;
}

Table DeviceRateTable(const Verdict& v, const std::string& mode) {
  Table t;
  t.header = {"table", "threads"};
  const std::vector<std::string> backends = BackendOrder(v);
  for (const auto& b : backends) t.header.push_back(b + " reads/s");
  t.header.push_back("max/min (gated backends)");
  std::set<std::pair<std::string, int>> rows;
  for (const auto& [key, s] : v.cells) {
    if (key.kind == r::kKindDevice && key.mode == mode) {
      rows.insert({key.table, key.threads});
    }
  }
  for (const auto& [table, threads] : rows) {
    std::vector<TableCell> c{{table}, {std::to_string(threads)}};
    double lo = INFINITY, hi = 0;
    for (const auto& b : backends) {
      double rate = DeviceRate(v.cells, b, table, mode, threads);
      c.push_back({Count(rate)});
      if (InVerdict(v.thresholds, b) && std::isfinite(rate)) {
        lo = std::min(lo, rate);
        hi = std::max(hi, rate);
      }
    }
    double spread = hi / lo;
    bool ok = spread <= v.thresholds.max_device_rate_spread;
    c.push_back({Ratio(spread), ok ? Style::kPass : Style::kFail});
    t.rows.push_back(std::move(c));
  }
  return t;
}

Table PreloadTable(const Verdict& v, const ResultSet& res) {
  Table t;
  t.header = {"backend", "mode", "preloaded (median)", "min–max",
              "what the open preloads"};
  std::set<std::string> modes;
  for (const auto& p : res.passes) modes.insert(p.cell.mode);
  for (const auto& backend : BackendOrder(v)) {
    for (const auto& mode : modes) {
      std::vector<double> bytes;
      for (const auto& p : res.passes) {
        if (!p.error && p.cell.backend == backend && p.cell.mode == mode &&
            r::IsReadKind(p.cell.kind)) {
          bytes.push_back(p.Get(r::kPreloadedBytes));
        }
      }
      if (bytes.empty()) continue;
      Spread s = Summarize(std::move(bytes));
      std::string what = res.Context(backend, r::kPreload);
      t.rows.push_back({{backend},
                        {mode},
                        {Mebibytes(s.median)},
                        {Mebibytes(s.min) + "–" + Mebibytes(s.max)},
                        {what.empty() ? "not recorded" : what}});
    }
  }
  return t;
}

Table ScheduleTable(const Verdict& v, const ResultSet& res) {
  Table t;
  t.header = {"backend", "passes", "first pass starts", "last pass starts",
              "schedule positions"};
  for (const auto& backend : BackendOrder(v)) {
    std::vector<double> starts, order;
    for (const auto& p : res.passes) {
      if (p.error || p.cell.backend != backend) continue;
      starts.push_back(p.Get(r::kPassStartS));
      order.push_back(p.Get(r::kPassOrder));
    }
    if (starts.empty()) continue;
    Spread s = Summarize(starts), o = Summarize(order);
    t.rows.push_back({{backend},
                      {std::to_string(starts.size())},
                      {Seconds(s.min)},
                      {Seconds(s.max)},
                      {Count(o.min) + "–" + Count(o.max)}});
  }
  return t;
}

}  // namespace flatbench::report
