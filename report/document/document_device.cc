// The device a run's verdict is for: its class (report/device_class.h),
// and for each hit check the device latency at which the structural model
// says it passes, per read path (report/verdict/passing_latency.h).
#include <algorithm>
#include <set>

#include "common/results_schema.h"
#include "report/device_class.h"
#include "report/document/document_parts.h"
#include "report/numbers.h"
#include "report/verdict/passing_latency.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

// The read paths the table judges: the candidate, its read paths, then
// each hit check's baseline, those the run measured.
std::vector<std::string> JudgedPaths(const Verdict& v) {
  std::vector<std::string> paths = {v.thresholds.candidate};
  for (const auto& variant : v.variants) {
    paths.push_back(variant.thresholds.candidate);
  }
  for (const auto& th : v.thresholds.checks) {
    if (th.metric != Metric::kHitReadsPerS) continue;
    if (std::find(paths.begin(), paths.end(), th.baseline) == paths.end()) {
      paths.push_back(th.baseline);
    }
  }
  std::vector<std::string> measured;
  for (const auto& p : paths) {
    for (const auto& [key, stats] : v.cells) {
      if (key.backend == p && key.kind == r::kKindHit) {
        measured.push_back(p);
        break;
      }
    }
  }
  return measured;
}

// Each path's terms per thread count: c and storage reads per hit, so a
// latency in the table can be traced to its inputs.
Table TermsTable(const Verdict& v, const ResultSet& res,
                 const std::vector<std::string>& paths) {
  Table t;
  t.header = {"read path", "table"};
  for (int threads : v.thresholds.threads) {
    t.header.push_back("c: CPU per read, " + std::to_string(threads) + "t");
    t.header.push_back("storage reads per hit, " + std::to_string(threads) +
                       "t");
  }
  const RatioThreshold* any = nullptr;
  for (const auto& th : v.thresholds.checks) {
    if (th.metric == Metric::kHitReadsPerS) any = &th;
  }
  if (any == nullptr) return t;
  std::set<std::string> tables;
  for (const auto& c : v.checks) tables.insert(c.candidate.table);
  for (const auto& p : paths) {
    for (const auto& table : tables) {
      std::vector<TableCell> row = {{p}, {table}};
      for (int threads : v.thresholds.threads) {
        const PassingLatency pl =
            PassingLatencyOf(v, res, *any, p, table, threads);
        row.push_back({Micros(pl.terms.cpu_candidate * 1e9)});
        row.push_back({Sig(pl.terms.reads_candidate, 3)});
      }
      t.rows.push_back(std::move(row));
    }
  }
  return t;
}

}  // namespace

std::string DeviceLine(const ResultSet& res) {
  return DeviceClassText(DeviceClassOfRun(res));
}

std::vector<Block> PassingLatencyBlocks(const Verdict& v,
                                        const ResultSet& res) {
  std::vector<Block> out;
  if (!r::IsColdMode(v.thresholds.gate_mode)) return out;
  const std::vector<std::string> paths = JudgedPaths(v);
  out.push_back(Paragraph(
      "Modelled, not measured: the device at which each hit check passes. "
      "This run's device: " +
      DeviceLine(res) +
      ". Per read path against the check's baseline (its bound as the "
      "check defines it), the 4 KiB read latency at depth 1 at which the "
      "structural model (RESEARCH.md §7, \"The device at which each check "
      "passes\") says the check passes."));
  out.push_back(Paragraph(
      "Its terms are this run's: c, the CPU per read (cpu_ns_per_read, "
      "median of the cold hit passes at the cell's thread count: one "
      "thread pays a sleep and a wake-up per read that many threads "
      "share), and n, the storage reads "
      "per hit (device requests per hit where recorded, else 4 KiB pages). "
      "Each backend reads as T readers that each need c of one of the "
      "host's cpus and then n g L of the device, where g is how this run's "
      "device's latency grows from 1 to T reads in flight: T / (c + n g L) "
      "with few threads, cpus / c with many, below both where they meet, "
      "as the readers queue for the cpus."));
  out.push_back(
      Paragraph("\"≤\": a faster device passes; \"≥\": a slower one; \"every "
                "latency\": CPU alone and pages alone both pass; \"none\": no "
                "latency does, and CPU alone gives the ratio shown."));
  Table t;
  t.header = {"check", "cell", "g"};
  for (const auto& p : paths) t.header.push_back(CandidateLabel(p));
  for (const auto& c : v.checks) {
    if (c.threshold.metric != Metric::kHitReadsPerS) continue;
    const std::string& table = c.candidate.table;
    const int threads = c.candidate.threads;
    std::vector<TableCell> row = {
        {c.threshold.name + " ≥ " + Ratio(c.threshold.bound)},
        {table + " hit " + std::to_string(threads) + "t"}};
    std::string g = "–";
    for (const auto& p : paths) {
      if (p == c.threshold.baseline) {
        row.push_back({"–"});
        continue;
      }
      const PassingLatency pl =
          PassingLatencyOf(v, res, c.threshold, p, table, threads);
      if (pl.terms.depth_scaling > 0) g = Fixed(pl.terms.depth_scaling, 2);
      row.push_back({PassingLatencyText(pl)});
    }
    row.insert(row.begin() + 2, TableCell{g});
    t.rows.push_back(std::move(row));
  }
  out.push_back(TableBlock(std::move(t)));
  out.push_back(Paragraph("The terms behind it, per read path and table:"));
  out.push_back(TableBlock(TermsTable(v, res, paths)));
  return out;
}

}  // namespace flatbench::report
