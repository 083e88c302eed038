// The report's batch section: MultiGet passes (bench --kinds batch) for
// every backend, cold and warm, beside the same backend's point reads of
// hit keys at the most threads measured (32 in the default matrix).
// Informational: no threshold reads the batch kind, so it never changes
// the verdict.
#include <cmath>
#include <set>
#include <tuple>

#include "common/results_ops.h"
#include "report/document/document_context.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"
#include "report/verdict/cells.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

// Modes with batch cells: the gate mode first, then the others by name.
std::vector<std::string> BatchModes(const Verdict& v) {
  std::set<std::string> seen;
  for (const auto& [key, st] : v.cells) {
    if (key.kind == r::kKindBatch && st.repetitions > 0) seen.insert(key.mode);
  }
  std::vector<std::string> out;
  if (seen.erase(v.thresholds.gate_mode)) out.push_back(v.thresholds.gate_mode);
  out.insert(out.end(), seen.begin(), seen.end());
  return out;
}

// The backend's hit point reads of `table` in `mode` at the most threads
// measured: the comparison the batch is meant for.
const CellStats* PointCell(const Verdict& v, const std::string& backend,
                           const std::string& table, const std::string& mode) {
  const CellStats* best = nullptr;
  for (const auto& [key, st] : v.cells) {
    if (key.backend != backend || key.table != table || key.mode != mode ||
        key.kind != r::kKindHit || st.repetitions == 0) {
      continue;
    }
    if (best == nullptr || key.threads > best->cell.threads) best = &st;
  }
  return best;
}

// (table, threads) of the batch cells in `mode`.
std::set<std::pair<std::string, int>> BatchRows(const Verdict& v,
                                                const std::string& mode) {
  std::set<std::pair<std::string, int>> rows;
  for (const auto& [key, st] : v.cells) {
    if (key.kind == r::kKindBatch && key.mode == mode && st.repetitions > 0) {
      rows.insert({key.table, key.threads});
    }
  }
  return rows;
}

// "-" for a figure the passes did not carry.
std::string OrDash(double v, const std::string& text) {
  return std::isfinite(v) ? text : "–";
}

std::string Depth(const CellStats& s) {
  const double mean = s.Of(r::kIoDepthMean).median;
  const double max = s.Of(r::kIoDepthMax).max;
  if (!std::isfinite(mean)) return "–";
  const double source = s.Of(r::kIoDepthSource).median;
  return Sig(mean, 3) + " / " + Sig(max, 3) +
         (source == 1 ? " (own submissions)" : " (diskstats)");
}

Table BatchTable(const Verdict& v, const std::string& mode) {
  Table t;
  t.header = {"table",
              "threads",
              "backend",
              "B",
              "keys/s (median)",
              "keys/s min–max",
              "CPU/key",
              "storage reads/key",
              "depth mean / max",
              "device at depth B",
              "device-side efficiency",
              "keys/s ÷ device rate",
              "point hits: threads",
              "point reads/s",
              "point CPU/read",
              "point device-side efficiency",
              "point hits/s ÷ device rate",
              "batch / point",
              "reps"};
  t.right_aligned.assign(t.header.size(), true);
  t.right_aligned[0] = t.right_aligned[2] = t.right_aligned[8] = false;
  for (const auto& [table, threads] : BatchRows(v, mode)) {
    for (const auto& backend : BackendOrder(v)) {
      const CellStats* s = MeasuredCell(
          v.cells, {backend, table, std::string(r::kKindBatch), mode, threads});
      if (s == nullptr) continue;
      const double keys = s->Of(r::kKeysPerS).median;
      const double cpu = s->Of(r::kCpuNsPerKey).median;
      const double reads = s->Of(r::kStorageReadsPerKey).median;
      const double dev = s->Of(r::kBatchDeviceReadsPerS).median;
      const double eff = s->Of(r::kBatchIoEfficiency).median;
      const double side = s->device_side.median;
      const CellStats* p = PointCell(v, backend, table, mode);
      const double point = p ? p->reads_per_s.median : NAN;
      const double point_cpu = p ? p->Of(r::kCpuNsPerRead).median : NAN;
      const double point_eff = p ? p->Of(r::kIoEfficiency).median : NAN;
      const double point_side = p ? p->device_side.median : NAN;
      t.rows.push_back({{table},
                        {std::to_string(threads)},
                        {BackendLabel(v, backend)},
                        {Count(s->Of(r::kBatchSize).median)},
                        {Count(keys)},
                        {Count(s->Of(r::kKeysPerS).min) + "–" +
                         Count(s->Of(r::kKeysPerS).max)},
                        {OrDash(cpu, Micros(cpu))},
                        {OrDash(reads, Sig(reads, 3))},
                        {Depth(*s)},
                        {OrDash(dev, Count(dev))},
                        {OrDash(side, Ratio(side))},
                        {OrDash(eff, Ratio(eff))},
                        {p ? std::to_string(p->cell.threads) : "–"},
                        {OrDash(point, Count(point))},
                        {OrDash(point_cpu, Micros(point_cpu))},
                        {OrDash(point_side, Ratio(point_side))},
                        {OrDash(point_eff, Ratio(point_eff))},
                        {OrDash(keys / point, Ratio(keys / point))},
                        {std::to_string(s->repetitions)}});
    }
  }
  return t;
}

// Median keys/s per backend per (table, batch threads), and beside each
// table the backend's point hits/s at the most threads.
BarChart BatchChart(const Verdict& v, const std::string& mode) {
  BarChart c;
  c.title = "Batched keys/s beside point reads/s (" + mode +
            ", median; whiskers min–max)";
  c.y_label = "keys/s";
  const auto rows = BatchRows(v, mode);
  std::vector<std::tuple<std::string, int, bool>> groups;
  std::string last_table;
  for (const auto& [table, threads] : rows) {
    if (!last_table.empty() && table != last_table) {
      groups.emplace_back(last_table, 0, false);
    }
    groups.emplace_back(table, threads, true);
    last_table = table;
  }
  if (!last_table.empty()) groups.emplace_back(last_table, 0, false);
  for (const auto& [table, threads, batch] : groups) {
    c.groups.push_back(batch ? table + " batch " + std::to_string(threads) + "t"
                             : table + " point, most threads");
  }
  for (const auto& backend : BackendOrder(v)) {
    BarSeries series{BackendLabel(v, backend), {}, {}, {}, {}};
    bool any = false;
    for (const auto& [table, threads, batch] : groups) {
      const CellStats* s =
          batch ? MeasuredCell(v.cells,
                               {backend, table, std::string(r::kKindBatch),
                                mode, threads})
                : PointCell(v, backend, table, mode);
      const r::Counter& rate = batch ? r::kKeysPerS : r::kReadsPerS;
      series.values.push_back(s ? s->Of(rate).median : NAN);
      series.low.push_back(s ? s->Of(rate).min : NAN);
      series.high.push_back(s ? s->Of(rate).max : NAN);
      any = any || (batch && s != nullptr);
    }
    if (any) c.series.push_back(std::move(series));
  }
  return c;
}

}  // namespace

Section BatchSection(const Verdict& v) {
  Section s{"Batched lookups", {}};
  const std::vector<std::string> modes = BatchModes(v);
  if (modes.empty()) {
    s.blocks.push_back(
        Paragraph("This run measured no batch cells (bench --kinds without "
                  "batch)."));
    return s;
  }
  s.blocks.push_back(Paragraph(
      "Informational: no threshold reads the batch kind, so it never "
      "changes the verdict. Each operation is one MultiGet of B hit keys; "
      "keys/s counts every key of every call. CPU/key is the worker "
      "process's CPU time per key; storage reads/key are 4 KiB reads from "
      "storage (/proc/self/io) per key."));
  s.blocks.push_back(Paragraph(
      "Depth is the I/O depth reached, mean / max: from the backend's own "
      "batch submissions where it counts them (the arena's io_uring: the "
      "reads a batch had in flight together, and the most a session had in "
      "flight at once), else the data device's in-flight count in "
      "/proc/diskstats, sampled every millisecond (every process's I/O on "
      "that device counts)."));
  s.blocks.push_back(Paragraph(
      "Beside each batch: the same backend's point reads of hit keys of the "
      "same table and mode at the most threads measured (32 in the default "
      "matrix), and the batch's keys/s over their reads/s. Medians over the "
      "repetitions; backends no threshold names are reference rows, marked "
      "(reference)."));
  s.blocks.push_back(Paragraph(
      "Against the own files' device rate at depth B (4 KiB O_DIRECT "
      "random reads at B threads; cold modes only), two figures: the "
      "device-side efficiency, storage reads/s (device read requests per "
      "key × keys/s) over that rate, at most about 1 when the batch is "
      "storage-bound; and keys/s ÷ device rate, above 1 when a batch reads "
      "fewer pages than it has keys. The point reads carry the same two "
      "figures against their own device rate, with hits/s for keys/s."));
  for (const auto& mode : modes) {
    s.blocks.push_back(Paragraph("Batches, " + mode + ":"));
    s.blocks.push_back(TableBlock(BatchTable(v, mode)));
    s.blocks.push_back(
        ChartBlock(BatchChart(v, mode), "batch_keys_per_s_" + mode + ".svg"));
  }
  return s;
}

}  // namespace flatbench::report
