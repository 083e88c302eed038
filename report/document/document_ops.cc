// The report's scan and startup section: ordered scans and process startup
// for every backend, cold and warm, side by side. Informational: no
// threshold reads these kinds, so they never change the verdict.
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "common/results_ops.h"
#include "report/document/document_context.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"
#include "report/verdict/cells.h"
#include "report/verdict/gates.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using Style = TableCell::Style;

// Modes in a fixed order: the gate mode first, then the others by name.
std::vector<std::string> ModesOf(const Verdict& v, std::string_view kind) {
  std::set<std::string> seen;
  for (const auto& [key, st] : v.cells) {
    if (key.kind == kind && st.repetitions > 0) seen.insert(key.mode);
  }
  std::vector<std::string> out;
  if (seen.erase(v.thresholds.gate_mode)) out.push_back(v.thresholds.gate_mode);
  out.insert(out.end(), seen.begin(), seen.end());
  return out;
}

const CellStats* FindKind(const Verdict& v, const std::string& backend,
                          const std::string& table, std::string_view kind,
                          const std::string& mode, int threads) {
  return MeasuredCell(v.cells,
                      {backend, table, std::string(kind), mode, threads});
}

// For each scan pass, whether its checksum equals that of the first
// backend (in BackendOrder) with the same table, mode, threads and
// repetition: those backends scanned from the same seek keys.
using ScanRef = std::tuple<std::string, std::string, int, int>;
std::map<CellKey, int> ChecksumDisagreements(const Verdict& v,
                                             const ResultSet& res) {
  std::map<ScanRef, std::pair<size_t, double>> first;  // -> (rank, checksum)
  const std::vector<std::string> order = BackendOrder(v);
  auto rank = [&](const std::string& b) {
    for (size_t i = 0; i < order.size(); ++i) {
      if (order[i] == b) return i;
    }
    return order.size();
  };
  for (const auto& p : res.passes) {
    if (p.error || p.cell.kind != r::kKindScan) continue;
    ScanRef ref{p.cell.table, p.cell.mode, p.cell.threads, p.rep};
    auto [it, fresh] = first.emplace(
        ref, std::make_pair(rank(p.cell.backend), p.Get(r::kScanChecksum)));
    if (!fresh && rank(p.cell.backend) < it->second.first) {
      it->second = {rank(p.cell.backend), p.Get(r::kScanChecksum)};
    }
  }
  std::map<CellKey, int> out;
  for (const auto& p : res.passes) {
    if (p.error || p.cell.kind != r::kKindScan) continue;
    const auto& ref =
        first.at({p.cell.table, p.cell.mode, p.cell.threads, p.rep});
    int& n = out[p.cell];
    if (p.Get(r::kScanChecksum) != ref.second) ++n;
  }
  return out;
}

Table ScanTable(const Verdict& v, const ResultSet& res,
                const std::string& mode) {
  Table t;
  t.header = {"table",
              "threads",
              "backend",
              "scans/s (median)",
              "scans/s min–max",
              "entries/s",
              "entries/scan",
              "p50 / p99 per scan",
              "major faults/scan",
              "bytes/scan",
              "in flight mean / peak",
              "pairs agree",
              "reps"};
  std::set<std::pair<std::string, int>> rows;
  for (const auto& [key, st] : v.cells) {
    if (key.kind == r::kKindScan && key.mode == mode) {
      rows.insert({key.table, key.threads});
    }
  }
  const auto disagree = ChecksumDisagreements(v, res);
  for (const auto& [table, threads] : rows) {
    for (const auto& backend : BackendOrder(v)) {
      const CellStats* s =
          FindKind(v, backend, table, r::kKindScan, mode, threads);
      if (s == nullptr) continue;
      auto d = disagree.find(s->cell);
      const int bad = d == disagree.end() ? 0 : d->second;
      t.rows.push_back(
          {{table},
           {std::to_string(threads)},
           {BackendLabel(v, backend)},
           {Count(s->reads_per_s.median)},
           {Count(s->reads_per_s.min) + "–" + Count(s->reads_per_s.max)},
           {Count(s->Of(r::kEntriesPerS).median)},
           {Sig(s->Of(r::kEntriesPerScan).median, 4)},
           {Micros(s->Of(r::kLatP50Ns).median) + " / " +
            Micros(s->Of(r::kLatP99Ns).median)},
           {Sig(s->Of(r::kMajorFaultsPerRead).median)},
           {Count(s->Of(r::kBytesReadPerRead).median)},
           {Sig(s->Of(r::kMeanInflight).median, 3) + " / " +
            Sig(s->Of(r::kPeakInflight).median, 3)},
           {bad == 0 ? "yes" : "NO: " + std::to_string(bad) + " passes differ",
            bad == 0 ? Style::kPlain : Style::kFail},
           {std::to_string(s->repetitions)}});
    }
  }
  return t;
}

Table StartupTable(const Verdict& v, const std::vector<std::string>& modes) {
  Table t;
  t.header = {"mode",
              "backend",
              "startup (median)",
              "fastest–slowest probe",
              "open (median)",
              "RSS after open",
              "probes",
              "reps"};
  for (const auto& mode : modes) {
    for (const auto& backend : BackendOrder(v)) {
      const CellStats* s = FindKind(v, backend, std::string(r::kTableAccount),
                                    r::kKindStartup, mode, 1);
      if (s == nullptr) continue;
      const Spread probes = s->Of(r::kStartupProbes);
      t.rows.push_back({{mode},
                        {BackendLabel(v, backend)},
                        {Millis(s->Of(r::kStartupS).median)},
                        {Millis(s->Of(r::kStartupMinS).min) + "–" +
                         Millis(s->Of(r::kStartupMaxS).max)},
                        {Millis(s->Of(r::kOpenSeconds).median)},
                        {Mebibytes(s->Of(r::kRssAfterOpenBytes).median)},
                        {Count(probes.median * static_cast<double>(probes.n))},
                        {std::to_string(s->repetitions)}});
    }
  }
  return t;
}

// Median scans/s per backend, one group per (table, threads).
BarChart ScanChart(const Verdict& v, const std::string& mode) {
  BarChart c;
  c.title = "Scans/s (" + mode + ", median; whiskers min–max)";
  c.y_label = "scans/s";
  std::set<std::pair<std::string, int>> rows;
  for (const auto& [key, st] : v.cells) {
    if (key.kind == r::kKindScan && key.mode == mode) {
      rows.insert({key.table, key.threads});
    }
  }
  for (const auto& [table, threads] : rows) {
    c.groups.push_back(table + " " + std::to_string(threads) + "t");
  }
  for (const auto& backend : BackendOrder(v)) {
    BarSeries series{BackendLabel(v, backend), {}, {}, {}, {}};
    for (const auto& [table, threads] : rows) {
      const CellStats* s =
          FindKind(v, backend, table, r::kKindScan, mode, threads);
      series.values.push_back(s ? s->reads_per_s.median : NAN);
      series.low.push_back(s ? s->reads_per_s.min : NAN);
      series.high.push_back(s ? s->reads_per_s.max : NAN);
    }
    c.series.push_back(std::move(series));
  }
  return c;
}

BarChart StartupChart(const Verdict& v, const std::vector<std::string>& modes) {
  BarChart c;
  c.title = "Startup to first read (median; whiskers fastest–slowest probe)";
  c.y_label = "startup, ms";
  c.log_scale = true;
  c.groups = modes;
  for (const auto& backend : BackendOrder(v)) {
    BarSeries series{BackendLabel(v, backend), {}, {}, {}, {}};
    for (const auto& mode : modes) {
      const CellStats* s = FindKind(v, backend, std::string(r::kTableAccount),
                                    r::kKindStartup, mode, 1);
      series.values.push_back(s ? s->Of(r::kStartupS).median * 1e3 : NAN);
      series.low.push_back(s ? s->Of(r::kStartupMinS).min * 1e3 : NAN);
      series.high.push_back(s ? s->Of(r::kStartupMaxS).max * 1e3 : NAN);
    }
    c.series.push_back(std::move(series));
  }
  return c;
}

}  // namespace

Section OpsSection(const Verdict& v, const ResultSet& res) {
  Section s{"Scans and startup", {}};
  const std::vector<std::string> scan_modes = ModesOf(v, r::kKindScan);
  const std::vector<std::string> startup_modes = ModesOf(v, r::kKindStartup);
  if (scan_modes.empty() && startup_modes.empty()) {
    s.blocks.push_back(Paragraph(
        "This run measured no scan or startup cells (bench --kinds without "
        "scan and startup)."));
    return s;
  }
  s.blocks.push_back(Paragraph(
      "Informational: no threshold reads these kinds, so they never change "
      "the verdict. Backends no threshold names are reference rows, marked "
      "(reference). Medians over the repetitions."));
  for (const auto& mode : scan_modes) {
    s.blocks.push_back(Paragraph(
        "Ordered scans, " + mode +
        ": each scan seeks to a uniformly drawn existing key and reads the "
        "next pairs in key order (entries/scan below the page size only at a "
        "table's end). Latency, faults and bytes are per scan. Pairs agree "
        "when every pass's checksum of the returned keys and values equals "
        "that of the first backend listed for the same seek keys."));
    s.blocks.push_back(TableBlock(ScanTable(v, res, mode)));
    s.blocks.push_back(
        ChartBlock(ScanChart(v, mode), "scans_per_s_" + mode + ".svg"));
  }
  if (!startup_modes.empty()) {
    s.blocks.push_back(Paragraph(
        "Startup: from spawning a fresh process to the end of its first "
        "successful hit read (exec, loading, the backend's open, one read; "
        "for a server backend, starting its server). Cold probes start "
        "after the backend's files were evicted; warm ones while another "
        "process holds them resident. Open is the probe's own open time; "
        "RSS is the probe's after its open plus any server processes' Pss."));
    s.blocks.push_back(TableBlock(StartupTable(v, startup_modes)));
    s.blocks.push_back(
        ChartBlock(StartupChart(v, startup_modes), "startup.svg"));
  }
  return s;
}

}  // namespace flatbench::report
