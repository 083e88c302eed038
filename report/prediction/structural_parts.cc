// Helpers of the prediction's structural sections (structural_parts.h).
#include "report/prediction/structural_parts.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/results_schema.h"
#include "report/numbers.h"

namespace flatbench::report::structural {

std::string Threads(int t) {
  return std::to_string(t) + (t == 1 ? " thread" : " threads");
}

std::string Signed(double fraction) {
  std::string out = fraction >= 0 ? "+" : "";
  out += Percent(fraction);
  return out;
}

// Median reads/s of a cold cell, NaN when absent.
double MeasuredRate(const ResultSet& rs, const std::string& backend,
                    const std::string& table, const std::string& kind,
                    int threads) {
  std::vector<double> v;
  for (const auto& p : rs.passes) {
    if (p.cell.backend == backend && p.cell.table == table &&
        p.cell.kind == kind && p.cell.mode == results::kModeCold &&
        p.cell.threads == threads && !p.error) {
      const double r = p.Get(results::kReadsPerS);
      if (r > 0) v.push_back(r);
    }
  }
  return v.empty() ? std::nan("") : Median(v);
}

double MedianCounter(const ResultSet& rs, const std::string& backend,
                     const std::string& table, int threads,
                     const results::Counter& counter) {
  std::vector<double> v;
  for (const auto& p : rs.passes) {
    if (p.cell.backend == backend && p.cell.table == table &&
        p.cell.kind == results::kKindHit && p.cell.mode == results::kModeCold &&
        p.cell.threads == threads) {
      const double x = p.Get(counter);
      if (std::isfinite(x) && x > 0) v.push_back(x);
    }
  }
  return v.empty() ? std::nan("") : Median(v);
}

// The backends of a run that the candidate's checks apply to: the
// candidate and each of its read-path variants ("arena+cache").
std::vector<std::string> Variants(const SweepInput& sweep,
                                  const std::string& candidate) {
  std::set<std::string> out;
  for (const auto& s : sweep.sizes) {
    for (const auto& p : s.results.passes) {
      if (GeometryBackend(p.cell.backend) == candidate) {
        out.insert(p.cell.backend);
      }
    }
  }
  return {out.begin(), out.end()};
}

// The candidate's variants, then every check's baseline.
std::vector<std::string> WithBaselines(std::vector<std::string> backends,
                                       const Thresholds& th) {
  for (const auto& c : th.checks) {
    if (std::find(backends.begin(), backends.end(), c.baseline) ==
        backends.end())
      backends.push_back(c.baseline);
  }
  return backends;
}

std::vector<GatedCell> GatedCells(const Thresholds& th) {
  std::vector<GatedCell> out;
  for (const auto& c : th.checks) {
    for (const auto& [table, kinds] : th.cells) {
      for (const auto& kind : kinds) {
        const bool hit = kind == results::kKindHit;
        if (hit != (c.metric == Metric::kHitReadsPerS)) continue;
        for (int t : th.threads) out.push_back({&c, table, kind, t});
      }
    }
  }
  return out;
}

RatioValue CheckRatio(const RatioThreshold& th, const RatePrediction& cand,
                      const RatePrediction& base) {
  RatioValue r;
  if (th.metric == Metric::kHitReadsPerS) {
    r.ratio = cand.rate / base.rate;
    r.interval = {cand.interval.low / base.interval.high,
                  cand.interval.high / base.interval.low};
  } else {
    r.ratio = base.rate / cand.rate;
    r.interval = {base.interval.low / cand.interval.high,
                  base.interval.high / cand.interval.low};
  }
  return r;
}

std::string OutlookOf(const RatioThreshold& th, const Interval& iv,
                      Style* style) {
  const bool higher = th.HigherIsBetter();
  const bool pass = higher ? iv.low >= th.bound : iv.high <= th.bound;
  const bool fail = higher ? iv.high < th.bound : iv.low > th.bound;
  *style = pass ? Style::kPass : fail ? Style::kFail : Style::kPlain;
  return pass   ? "predicted to pass"
         : fail ? "predicted to fail"
                : "interval holds the bound";
}

uint64_t ReadsPerPass(const SweepSize& s) {
  return static_cast<uint64_t>(
      s.results.Integer(results::kReadsPerPass.name).value_or(0));
}

std::string Us(double seconds) { return Micros(seconds * 1e9); }

namespace {

// c measured at each thread count above one that the run has: "8t 12.1 µs,
// 32t 9.8 µs", or "–".
std::string MoreThreads(const ResultSet& rs, const std::string& b,
                        const std::string& table, const std::string& kind) {
  std::set<int> counts;
  for (const auto& p : rs.passes) {
    if (p.cell.backend == b && p.cell.table == table && p.cell.kind == kind &&
        p.cell.threads > 1) {
      counts.insert(p.cell.threads);
    }
  }
  std::string out;
  for (int t : counts) {
    const CpuCost c = MeasuredCpu(rs, b, table, kind, t);
    if (c.passes == 0 || c.threads != t) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(t) + "t " + Us(c.mid);
  }
  return out.empty() ? "–" : out;
}

}  // namespace

// c per backend and (table, kind) of each calibration size: its source,
// its warm part and cold extra where measured, and the residual beside it.
Table CpuTable(const std::vector<const SweepSize*>& sizes,
               const std::vector<std::string>& backends,
               const Thresholds& thresholds, const DeviceProfile& profile) {
  Table t;
  t.header = {"accounts",   "backend",       "cell",
              "source",     "c [low, high]", "warm part",
              "cold extra", "residual",      "c at more threads"};
  for (const SweepSize* size : sizes) {
    const Predictor pr{profile, *size, kRequiredRamBytes};
    for (const auto& b : backends) {
      for (const auto& [table, kinds] : thresholds.cells) {
        for (const auto& kind : kinds) {
          IoShape shape;
          if (!pr.Shape(size->geometry, b, table, kind, ReadsPerPass(*size),
                        &shape)) {
            continue;
          }
          const CpuCost c = CpuPerRead(size->results, b, table, kind,
                                       shape.unit_pages, profile);
          if (c.passes == 0) continue;
          const CpuCost res = CalibrateCpu(size->results, b, table, kind,
                                           shape.unit_pages, profile);
          const bool measured = c.source == CpuCost::Source::kMeasured;
          const bool split = measured && c.warm_passes > 0;
          t.rows.push_back(
              {{Count(static_cast<double>(size->accounts))},
               {b},
               {table + " " + kind},
               {std::string(measured ? "measured" : "residual") + ", " +
                std::to_string(c.passes) + " passes"},
               {Us(c.mid) + " [" + Us(c.low) + ", " + Us(c.high) + "]"},
               {split ? Us(c.warm) : "–"},
               {split ? Us(c.ColdExtra()) : "–"},
               {res.passes > 0 ? Us(res.mid) : "–"},
               {MoreThreads(size->results, b, table, kind)}});
        }
      }
    }
  }
  return t;
}

}  // namespace flatbench::report::structural
