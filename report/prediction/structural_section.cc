// The prediction report's structural sections: the device profile, the
// structural prediction at full scale beside the trend, its validation at
// every measured size, the trend's holdout, and the I/O-efficiency trends.
#include <algorithm>
#include <cmath>
#include <set>

#include "common/results_schema.h"
#include "report/format.h"
#include "report/prediction/prediction_parts.h"
#include "report/prediction/structural.h"
#include "report/prediction/trend.h"

namespace flatbench::report {
namespace {

using Style = TableCell::Style;
using Bound = DeviceProfile::Bound;

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

// Every gated (check, table, kind, threads) cell.
struct GatedCell {
  const RatioThreshold* check;
  std::string table, kind;
  int threads;
};
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

// The check's ratio from two rates (hit: candidate / baseline; miss cost:
// baseline / candidate), with the interval of the two rates' intervals.
struct RatioValue {
  double ratio = 0;
  Interval interval;
};
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

// One size's predictions: per backend and cell, with c from
// `calibration`'s one-thread passes (CpuPerRead: measured where they carry
// the counter, else the residual).
struct Predictor {
  const DeviceProfile& profile;
  const SweepSize& calibration;
  uint64_t ram_bytes;

  // False when the backend has no geometry or the table is unknown.
  bool Shape(const std::map<std::string, BackendGeometry>& geometry,
             const std::string& backend, const std::string& table,
             const std::string& kind, uint64_t reads_per_pass,
             IoShape* shape) const {
    auto g = geometry.find(GeometryBackend(backend));
    if (g == geometry.end()) return false;
    flatbench::Table tb;
    if (!flatbench::ParseTable(table, &tb)) return false;
    *shape = ShapeOf(g->second, tb, kind, ram_bytes, reads_per_pass);
    return true;
  }

  // Rate 0 when the backend has no geometry or no calibration passes.
  // `own_latency` as PredictRate's.
  RatePrediction At(const std::map<std::string, BackendGeometry>& geometry,
                    const std::string& backend, const std::string& table,
                    const std::string& kind, int threads,
                    uint64_t reads_per_pass, double own_latency = 0) const {
    IoShape shape;
    if (!Shape(geometry, backend, table, kind, reads_per_pass, &shape)) {
      return {};
    }
    const CpuCost cpu = CpuPerRead(calibration.results, backend, table, kind,
                                   shape.unit_pages, profile);
    if (cpu.passes == 0) return {};
    return PredictRate(shape, cpu, threads, profile, own_latency);
  }
};

std::string Us(double seconds) { return Micros(seconds * 1e9); }

// c per backend and (table, kind) of each calibration size: its source,
// its warm part and cold extra where measured, and the residual beside it.
Table CpuTable(const std::vector<const SweepSize*>& sizes,
               const std::vector<std::string>& backends,
               const Thresholds& thresholds, const DeviceProfile& profile) {
  Table t;
  t.header = {"accounts",      "backend",   "cell",       "source",
              "c [low, high]", "warm part", "cold extra", "residual"};
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
               {res.passes > 0 ? Us(res.mid) : "–"}});
        }
      }
    }
  }
  return t;
}

}  // namespace

Section StructuralSection(const SweepInput& sweep, const DeviceProfile& profile,
                          const Thresholds& thresholds,
                          const std::map<std::string, BackendGeometry>& full,
                          const std::vector<PredictedCheck>& checks) {
  Section s{"Structural prediction: geometry, CPU and the device profile", {}};
  const SweepSize& first = sweep.sizes.front();
  const SweepSize& last = sweep.sizes.back();
  s.blocks.push_back(Paragraph(
      "Each backend's reads/s in a cold cell from the structure of its "
      "reads, not from a trend: the geometric model's 4 KiB pages per read "
      "and the pages one data unit spans (so a RocksDB hit is one read of "
      "8-12 KiB, an arena or LMDB hit one of 4 KiB); c, the time per read "
      "not spent waiting on the device; and the device profile's mean "
      "latency L(T, size) at T reads in flight. With T threads, reads/s = "
      "min(T / (c + reads × L), cpus / c) (bound by: threads or cpus). The "
      "interval takes c at its lowest and highest pass and L at the "
      "profile's fastest and slowest round, together."));
  s.blocks.push_back(Paragraph(
      "c is measured where the passes carry cpu_ns_per_read: the worker's "
      "CPU time (user and system) per read, median of the cell's one-thread "
      "cold passes, which holds the cold read's page fault or read syscall. "
      "Where the run has warm cells it is split into the warm part (the "
      "one-thread warm passes' CPU per read) and the cold extra (the rest). "
      "For results without that counter c is a residual: each one-thread "
      "cold pass's 1/reads_per_s less its measured storage reads priced at "
      "its own files' device cell. The residual is shown beside a measured "
      "c: what it holds beyond it is time neither on a CPU nor priced as "
      "device time, such as waiting for a CPU on a loaded host. c per "
      "backend and cell, with its source:"));
  {
    std::vector<const SweepSize*> calibrations = {&first};
    if (&last != &first) calibrations.push_back(&last);
    s.blocks.push_back(TableBlock(CpuTable(
        calibrations,
        WithBaselines(Variants(sweep, thresholds.candidate), thresholds),
        thresholds, profile)));
  }
  s.blocks.push_back(Paragraph(
      "Device profile: " + profile.source + " (" + profile.dir + ", " +
      profile.filesystem + ", measured " + profile.measured_at + ", " +
      std::to_string(profile.cpus) + " cpus, load average " +
      Fixed(profile.load_average, 2) +
      " when it started). A scratch file is freshly written: where storage "
      "serves recent files faster than old ones, it is the device's rate "
      "for new data."));
  Table pt;
  pt.header = {"queue depth",   "read size",    "reads/s",
               "rounds' range", "mean latency", "p99"};
  for (const auto& c : profile.cells) {
    pt.rows.push_back(
        {{std::to_string(c.depth)},
         {Bytes(c.read_bytes)},
         {Count(c.reads_per_s)},
         {Count(c.reads_per_s_low) + " – " + Count(c.reads_per_s_high)},
         {Micros(c.lat_mean_ns)},
         {Micros(c.lat_p99_ns)}});
  }
  s.blocks.push_back(TableBlock(std::move(pt)));

  const auto cells = GatedCells(thresholds);
  const auto variants = Variants(sweep, thresholds.candidate);

  // Full scale, beside the trend.
  {
    const Predictor pr{profile, last, kRequiredRamBytes};
    Table t;
    t.header = {"check",
                "candidate",
                "cell",
                "structural (interval)",
                "trend (95%)",
                "bound",
                "structural outlook"};
    for (const auto& gc : cells) {
      for (const auto& v : variants) {
        const RatePrediction cand =
            pr.At(full, v, gc.table, gc.kind, gc.threads, ReadsPerPass(last));
        const RatePrediction base =
            pr.At(full, gc.check->baseline, gc.table, gc.kind, gc.threads,
                  ReadsPerPass(last));
        if (!(cand.rate > 0) || !(base.rate > 0)) continue;
        const RatioValue r = CheckRatio(*gc.check, cand, base);
        std::string trend = "–";
        for (const auto& p : checks) {
          if (v == thresholds.candidate && p.fitted &&
              p.threshold.name == gc.check->name && p.table == gc.table &&
              p.kind == gc.kind && p.threads == gc.threads) {
            trend = RangeText(p.trend.predicted, p.trend.interval);
          }
        }
        Style style;
        const std::string outlook = OutlookOf(*gc.check, r.interval, &style);
        t.rows.push_back(
            {{gc.check->name},
             {v},
             {gc.table + " " + gc.kind + ", " + Threads(gc.threads)},
             {RangeText(r.ratio, r.interval)},
             {trend},
             {std::string(gc.check->HigherIsBetter() ? "≥ " : "≤ ") +
              Ratio(gc.check->bound)},
             {outlook, style}});
      }
    }
    s.blocks.push_back(Paragraph(
        "At full scale on this profile's device and cpus, with c from the "
        "largest size (" +
        Count(static_cast<double>(last.accounts)) +
        " accounts) and the geometry grown to full scale on the RAM "
        "RESEARCH.md requires, beside the trend's extrapolation (the trend "
        "has the candidate's own cells only):"));
    s.blocks.push_back(TableBlock(std::move(t)));
  }

  // Validation: every size from its geometry and the profile, c from the
  // smallest size.
  {
    const Predictor pr{profile, first, kRequiredRamBytes};
    Table rates;
    rates.header = {"accounts",
                    "backend",
                    "cell",
                    "predicted reads/s",
                    "measured",
                    "error",
                    "own files' device / profile",
                    "predicted on own files' device",
                    "its error",
                    "bound by"};
    Table ratios;
    ratios.header = {"accounts",        "check",
                     "candidate",       "cell",
                     "predicted ratio", "measured",
                     "error",           "predicted on own files' device",
                     "its error"};
    const std::vector<std::string> backends =
        WithBaselines(variants, thresholds);
    for (const auto& size : sweep.sizes) {
      const std::string acc = Count(static_cast<double>(size.accounts));
      const uint64_t reads = ReadsPerPass(size);
      for (const auto& b : backends) {
        for (const auto& [table, kinds] : thresholds.cells) {
          for (const auto& kind : kinds) {
            for (int t : thresholds.threads) {
              const RatePrediction p =
                  pr.At(size.geometry, b, table, kind, t, reads);
              const double m = MeasuredRate(size.results, b, table, kind, t);
              if (!(p.rate > 0) || !std::isfinite(m)) continue;
              const double err = p.rate / m - 1;
              std::vector<TableCell> row = {
                  {acc},
                  {b},
                  {table + " " + kind + ", " + Threads(t)},
                  {Count(p.rate) + " [" + Count(p.interval.low) + ", " +
                   Count(p.interval.high) + "]"},
                  {Count(m)},
                  {Signed(err),
                   std::abs(err) <= 0.15 ? Style::kPass : Style::kFail}};
              // Hit cells: the same prediction on the device rate the
              // backend's own files gave at that moment (its device
              // cells), which separates the model's error from the
              // device's difference from the profile.
              const double own = MedianCounter(size.results, b, table, t,
                                               results::kDeviceReadsPerS);
              if (kind == results::kKindHit && own > 0) {
                const RatePrediction o =
                    pr.At(size.geometry, b, table, kind, t, reads, t / own);
                const double oerr = o.rate / m - 1;
                row.push_back({Ratio(own / profile.ReadsPerS(t, kPageBytes))});
                row.push_back({Count(o.rate)});
                row.push_back({Signed(oerr), std::abs(oerr) <= 0.15
                                                 ? Style::kPass
                                                 : Style::kFail});
              } else {
                row.insert(row.end(), {{"–"}, {"–"}, {"–"}});
              }
              row.push_back({p.cpu_bound ? "cpus" : "threads"});
              rates.rows.push_back(std::move(row));
            }
          }
        }
      }
      for (const auto& gc : cells) {
        for (const auto& v : variants) {
          const RatePrediction cand =
              pr.At(size.geometry, v, gc.table, gc.kind, gc.threads, reads);
          const RatePrediction base =
              pr.At(size.geometry, gc.check->baseline, gc.table, gc.kind,
                    gc.threads, reads);
          const double mc =
              MeasuredRate(size.results, v, gc.table, gc.kind, gc.threads);
          const double mb = MeasuredRate(size.results, gc.check->baseline,
                                         gc.table, gc.kind, gc.threads);
          if (!(cand.rate > 0) || !(base.rate > 0) || !std::isfinite(mc) ||
              !std::isfinite(mb)) {
            continue;
          }
          const RatioValue r = CheckRatio(*gc.check, cand, base);
          const double measured =
              gc.check->metric == Metric::kHitReadsPerS ? mc / mb : mb / mc;
          const double err = r.ratio / measured - 1;
          std::vector<TableCell> row = {
              {acc},
              {gc.check->name},
              {v},
              {gc.table + " " + gc.kind + ", " + Threads(gc.threads)},
              {RangeText(r.ratio, r.interval)},
              {Ratio(measured)},
              {Signed(err),
               std::abs(err) <= 0.15 ? Style::kPass : Style::kFail}};
          // Hit checks: the same ratio on each backend's own files' device.
          const double oc = MedianCounter(size.results, v, gc.table, gc.threads,
                                          results::kDeviceReadsPerS);
          const double ob =
              MedianCounter(size.results, gc.check->baseline, gc.table,
                            gc.threads, results::kDeviceReadsPerS);
          if (gc.kind == results::kKindHit && oc > 0 && ob > 0) {
            const RatioValue o =
                CheckRatio(*gc.check,
                           pr.At(size.geometry, v, gc.table, gc.kind,
                                 gc.threads, reads, gc.threads / oc),
                           pr.At(size.geometry, gc.check->baseline, gc.table,
                                 gc.kind, gc.threads, reads, gc.threads / ob));
            const double oerr = o.ratio / measured - 1;
            row.push_back({Ratio(o.ratio)});
            row.push_back({Signed(oerr), std::abs(oerr) <= 0.15
                                             ? Style::kPass
                                             : Style::kFail});
          } else {
            row.insert(row.end(), {{"–"}, {"–"}});
          }
          ratios.rows.push_back(std::move(row));
        }
      }
    }
    s.blocks.push_back(Paragraph(
        "Validation: every measured size predicted from its own geometry and "
        "the device profile alone, with c taken once from the smallest "
        "size (" +
        Count(static_cast<double>(first.accounts)) +
        " accounts; its rows are in-sample for c, the larger sizes are not). "
        "Measured: the median reads/s over the cell's cold passes. Errors "
        "beyond ±15% are marked. For hit cells, the same prediction on the "
        "device rate of the backend's own files at that moment (its device "
        "cells, as a ratio to the profile's 4 KiB rate at that depth) "
        "separates the model's error from the storage's: where the own "
        "files' rate is far from the profile's, so is a profile-based "
        "prediction. Reads/s per backend and cell:"));
    s.blocks.push_back(TableBlock(std::move(rates)));
    s.blocks.push_back(
        Paragraph("The gated ratios, predicted against "
                  "measured at every size:"));
    s.blocks.push_back(TableBlock(std::move(ratios)));
  }
  return s;
}

Section HoldoutSection(const SweepInput& sweep,
                       const std::vector<PredictedCheck>& checks) {
  Section s{"The trend's holdout: the largest size from the smaller ones", {}};
  const SweepSize& last = sweep.sizes.back();
  if (sweep.sizes.size() < 3) {
    s.blocks.push_back(Paragraph(
        "A holdout needs three measured sizes: two to fit, one to predict. "
        "This sweep has " +
        std::to_string(sweep.sizes.size()) + "."));
    return s;
  }
  Table t;
  t.header = {"check",
              "cell",
              "predicted at " + Short(static_cast<double>(last.accounts)) +
                  " acc (95%)",
              "measured",
              "error",
              "measured inside"};
  for (const auto& p : checks) {
    std::vector<TrendPoint> fit;
    const TrendPoint* held = nullptr;
    for (const auto& pt : p.points) {
      if (pt.pairs == static_cast<double>(last.pairs)) {
        held = &pt;
      } else {
        fit.push_back(pt);
      }
    }
    if (held == nullptr) continue;
    auto tr = FitTrend(fit, held->pairs);
    if (!tr.ok()) continue;
    const double err = tr->predicted / held->ratio - 1;
    const bool inside =
        tr->interval.low <= held->ratio && held->ratio <= tr->interval.high;
    t.rows.push_back(
        {{p.threshold.name},
         {p.table + " " + p.kind + ", " + Threads(p.threads)},
         {RangeText(tr->predicted, tr->interval)},
         {Ratio(held->ratio)},
         {Signed(err), std::abs(err) <= 0.15 ? Style::kPass : Style::kFail},
         {inside ? "yes" : "no", inside ? Style::kPass : Style::kFail}});
  }
  s.blocks.push_back(Paragraph(
      "Each gated ratio's trend fitted on every size but the largest and "
      "extrapolated to the largest, against what was measured there: how "
      "well the trend would have predicted a size it had not seen."));
  s.blocks.push_back(TableBlock(std::move(t)));
  return s;
}

Section EfficiencySection(const SweepInput& sweep, const Thresholds& th,
                          double target_pairs) {
  Section s{"I/O efficiency against dataset size", {}};
  s.blocks.push_back(Paragraph(
      "Each hit cell's I/O efficiency (reads/s over its own files' device "
      "cell at the same moment, io_efficiency) as the candidate's over the "
      "baseline's, per size, fitted and extrapolated like the raw ratios. A "
      "device that serves one backend's files slower than another's moves "
      "the raw ratio but not this one; where the two trends disagree, the "
      "device drifted."));
  Table t;
  t.header = {"check", "cell"};
  for (const auto& size : sweep.sizes) {
    t.header.push_back(Short(static_cast<double>(size.accounts)) + " acc");
  }
  t.header.insert(t.header.end(), {"per decade", "full scale (95%)"});
  bool any = false;
  for (const auto& c : th.checks) {
    if (c.metric != Metric::kHitReadsPerS) continue;
    for (const auto& [table, kinds] : th.cells) {
      if (std::find(kinds.begin(), kinds.end(), results::kKindHit) ==
          kinds.end())
        continue;
      for (int threads : th.threads) {
        std::vector<TableCell> row = {{c.name},
                                      {table + " hit, " + Threads(threads)}};
        std::vector<TrendPoint> pts;
        for (const auto& size : sweep.sizes) {
          const double a = MedianCounter(size.results, th.candidate, table,
                                         threads, results::kIoEfficiency);
          const double b = MedianCounter(size.results, c.baseline, table,
                                         threads, results::kIoEfficiency);
          if (std::isfinite(a) && std::isfinite(b)) {
            // No bootstrap here: an uncertainty of about 5% (one standard
            // deviation) per size weights the sizes alike.
            const double r = a / b;
            pts.push_back(
                {static_cast<double>(size.pairs), r, {r / 1.1, r * 1.1}});
            row.push_back({Ratio(r)});
          } else {
            row.push_back({"–"});
          }
        }
        auto tr = FitTrend(pts, target_pairs);
        row.push_back({tr.ok() ? Ratio(tr->per_decade) : "–"});
        row.push_back({tr.ok() ? RangeText(tr->predicted, tr->interval) : "–"});
        any = any || !pts.empty();
        t.rows.push_back(std::move(row));
      }
    }
  }
  if (!any) {
    s.blocks.push_back(Paragraph(
        "This sweep has no device cells (it ran with --no-device), so no "
        "I/O efficiency was measured."));
    return s;
  }
  s.blocks.push_back(TableBlock(std::move(t)));
  return s;
}

}  // namespace flatbench::report
