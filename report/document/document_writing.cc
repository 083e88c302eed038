// The report's "Reads during upkeep" section: writing passes (bench
// --write-while-reading) per store, mode, table and thread count, beside
// the same store's quiet hit reads of the same run; the read p99 through
// each pass with the arena's merge windows; and a modelled line for a
// full-scale merge. Informational: no threshold reads the writing kind.
#include <algorithm>
#include <cmath>
#include <map>

#include "common/results_writing.h"
#include "dataset/estimate.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

double MedianOf(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(),
                         [](double x) { return !std::isfinite(x); }),
          v.end());
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The quiet hit passes' median of `c` for the writing cell `w`.
double Quiet(const ResultSet& rs, const CellKey& w, const r::Counter& c) {
  std::vector<double> v;
  for (const Pass& p : rs.passes) {
    if (p.error || p.cell.kind != r::kKindHit) continue;
    if (p.cell.backend == w.backend && p.cell.table == w.table &&
        p.cell.mode == w.mode && p.cell.threads == w.threads) {
      v.push_back(p.Get(c));
    }
  }
  return MedianOf(v);
}

std::string Dash(double v, const std::string& text) {
  return std::isfinite(v) ? text : "–";
}

std::vector<const Pass*> WritingPasses(const ResultSet& rs) {
  std::vector<const Pass*> out;
  for (const Pass& p : rs.passes) {
    if (!p.error && p.cell.kind == r::kKindWriting) out.push_back(&p);
  }
  std::sort(out.begin(), out.end(),
            [](const Pass* a, const Pass* b) { return a->cell < b->cell; });
  return out;
}

Table WritingTable(const ResultSet& rs, const std::vector<const Pass*>& ps) {
  Table t;
  t.header = {"mode",
              "table",
              "threads",
              "store",
              "reads/s writing",
              "reads/s quiet",
              "p99 writing",
              "p99 quiet",
              "blocks",
              "block p50 / p99 / max",
              "checks (wrong)",
              "merges or compactions",
              "p99 in / outside merges"};
  for (const Pass* p : ps) {
    const double quiet = Quiet(rs, p->cell, r::kReadsPerS);
    const double quiet_p99 = Quiet(rs, p->cell, r::kLatP99Ns);
    std::string upkeep = "–";
    if (std::isfinite(p->Get(r::kMerges))) {
      upkeep = Count(p->Get(r::kMerges)) + " merges, " +
               Seconds(p->Get(r::kMergeSeconds));
    } else if (std::isfinite(p->Get(r::kCompactions))) {
      upkeep = Count(p->Get(r::kCompactions)) + " compactions, " +
               Bytes(p->Get(r::kCompactionBytes));
    }
    const std::vector<std::string> cells = {
        p->cell.mode,
        p->cell.table,
        std::to_string(p->cell.threads),
        p->cell.backend,
        Short(p->Get(r::kReadsPerS)),
        Dash(quiet,
             Short(quiet) + " (" + Ratio(p->Get(r::kReadsPerS) / quiet) + ")"),
        Micros(p->Get(r::kLatP99Ns)),
        Dash(quiet_p99, Micros(quiet_p99)),
        Count(p->Get(r::kBlocksApplied)) +
            (p->Get(r::kWritingCapHit) == 1 ? " (cap)" : ""),
        Micros(p->Get(r::kBlockP50Ns)) + " / " +
            Micros(p->Get(r::kBlockP99Ns)) + " / " +
            Micros(p->Get(r::kBlockMaxNs)),
        Count(p->Get(r::kChecksDone)) + " (" + Count(p->Get(r::kChecksWrong)) +
            ")",
        upkeep,
        Dash(p->Get(r::kLatP99NsInMerge), Micros(p->Get(r::kLatP99NsInMerge))) +
            " / " +
            Dash(p->Get(r::kLatP99NsOutsideMerge),
                 Micros(p->Get(r::kLatP99NsOutsideMerge)))};
    std::vector<TableCell> row;
    for (const std::string& c : cells) row.push_back({c});
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

Section WritingSection(const ResultSet& rs) {
  Section s{"Reads during upkeep", {}};
  const std::vector<const Pass*> ps = WritingPasses(rs);
  if (ps.empty()) return s;
  s.blocks.push_back(Paragraph(
      "Hit reads while the same store takes the dataset's stream of blocks "
      "(bench --write-while-reading), each on a copy of the store, beside "
      "the same store's quiet hit reads of this run (median over "
      "repetitions, the ratio writing over quiet in brackets). Every "
      "sampled read was checked against the blocks applied as it ran. "
      "Informational: no threshold reads these figures."));
  s.blocks.push_back(TableBlock(WritingTable(rs, ps)));
  // One chart per mode, table and thread count: each store's p99.
  std::map<std::tuple<std::string, std::string, int>, std::vector<const Pass*>>
      charts;
  for (const Pass* p : ps) {
    charts[{p->cell.mode, p->cell.table, p->cell.threads}].push_back(p);
  }
  for (const auto& [key, group] : charts) {
    const auto& [mode, table, threads] = key;
    s.blocks.push_back(WritingChartBlock(
        "Read p99 through the pass: " + table + " hits, " + mode + ", " +
            std::to_string(threads) + " threads (shaded: the arena's merges)",
        "writing-" + mode + "-" + table + "-" + std::to_string(threads) +
            ".svg",
        group));
  }
  const std::string model = ModelledMergeLine(rs, ps);
  if (!model.empty()) s.blocks.push_back(Paragraph(model));
  return s;
}

std::string ModelledMergeLine(const ResultSet& rs,
                              const std::vector<const Pass*>& ps) {
  std::vector<double> rates, in, out;
  for (const Pass* p : ps) {
    rates.push_back(p->Get(r::kMergeMbPerS));
    in.push_back(p->Get(r::kReadsPerSInMerge));
    out.push_back(p->Get(r::kReadsPerSOutsideMerge));
  }
  const double mb_per_s = MedianOf(rates);
  if (!std::isfinite(mb_per_s)) return "";
  const auto full = dataset::MakeSpec("full", 0, 0, 0);
  if (!full.ok()) return "";
  const double base =
      static_cast<double>(dataset::EstimateDiskBytes(full.value(), "arena"));
  const double merge_s = base / (mb_per_s * 1e6);
  const double share = 1 - MedianOf(in) / MedianOf(out);
  std::string line =
      "Modelled, not measured: one merge of the full-scale arena base (" +
      Bytes(base) + ", the plan's estimate) at this run's merge rate (" +
      Sig(mb_per_s, 3) + " MB/s, median of the writing passes) takes " +
      Seconds(merge_s) + " beside a read load";
  if (std::isfinite(share) && share >= 0) {
    line += "; while this run's merges ran, reads went " + Percent(share) +
            " slower than outside them (reads/s inside over outside the "
            "merge windows, median of the arena's passes)";
  } else if (std::isfinite(share)) {
    // Faster inside: the merge read the whole base, which at this size
    // stays in the page cache and warms the readers; a full-scale base,
    // far larger than RAM, does not.
    line += "; while this run's merges ran, reads went " + Percent(-share) +
            " faster than outside them: the merge read the whole base, "
            "which at this size stays in the page cache, so this run does "
            "not measure what a merge costs the readers";
  } else {
    line += "; no pass had reads both inside and outside a merge";
  }
  // The device's side: the merge reads and writes the base, 2 x its rate,
  // against what the device moves at depth 32 in its largest reads. For a
  // read load bound by the device, that is the share of its throughput the
  // merge takes while it runs.
  if (!rs.device_profiles.empty()) {
    const DeviceProfile& p = rs.device_profiles.begin()->second;
    const double device_mb_per_s = p.ReadsPerS(32, 16384) * 16384 / 1e6;
    if (device_mb_per_s > 0) {
      const double take = std::min(1.0, 2 * mb_per_s / device_mb_per_s);
      line += "; on the recorded device (" + Sig(device_mb_per_s, 3) +
              " MB/s at depth 32 in 16 KiB reads) such a merge takes " +
              Percent(take) +
              " of the device's throughput for that long, the share of a "
              "device-bound read load's rate it costs (" +
              p.source + ").";
      return line;
    }
  }
  line +=
      " (no device profile in the results: the share a merge costs a "
      "device-bound read load is not modelled).";
  return line;
}

}  // namespace flatbench::report
