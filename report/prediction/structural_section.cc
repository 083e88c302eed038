// The prediction report's structural section: the device profile, the
// structural prediction at full scale beside the trend, and its validation
// at every measured size (helpers in structural_parts.h).
#include <algorithm>
#include <cmath>
#include <set>

#include "common/results_schema.h"
#include "report/numbers.h"
#include "report/prediction/prediction_parts.h"
#include "report/prediction/structural.h"
#include "report/prediction/structural_parts.h"
#include "report/prediction/trend.h"

namespace flatbench::report {

namespace {
using Style = TableCell::Style;
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
    s.blocks.push_back(TableBlock(structural::CpuTable(
        calibrations,
        structural::WithBaselines(
            structural::Variants(sweep, thresholds.candidate), thresholds),
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

  const auto cells = structural::GatedCells(thresholds);
  const auto variants = structural::Variants(sweep, thresholds.candidate);

  // Full scale, beside the trend.
  {
    const structural::Predictor pr{profile, last, kRequiredRamBytes};
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
            pr.At(full, v, gc.table, gc.kind, gc.threads,
                  structural::ReadsPerPass(last));
        const RatePrediction base =
            pr.At(full, gc.check->baseline, gc.table, gc.kind, gc.threads,
                  structural::ReadsPerPass(last));
        if (!(cand.rate > 0) || !(base.rate > 0)) continue;
        const structural::RatioValue r =
            structural::CheckRatio(*gc.check, cand, base);
        std::string trend = "–";
        for (const auto& p : checks) {
          if (v == thresholds.candidate && p.fitted &&
              p.threshold.name == gc.check->name && p.table == gc.table &&
              p.kind == gc.kind && p.threads == gc.threads) {
            trend = RangeText(p.trend.predicted, p.trend.interval);
          }
        }
        Style style;
        const std::string outlook =
            structural::OutlookOf(*gc.check, r.interval, &style);
        t.rows.push_back(
            {{gc.check->name},
             {v},
             {gc.table + " " + gc.kind + ", " +
              structural::Threads(gc.threads)},
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
    const structural::Predictor pr{profile, first, kRequiredRamBytes};
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
        structural::WithBaselines(variants, thresholds);
    for (const auto& size : sweep.sizes) {
      const std::string acc = Count(static_cast<double>(size.accounts));
      const uint64_t reads = structural::ReadsPerPass(size);
      for (const auto& b : backends) {
        for (const auto& [table, kinds] : thresholds.cells) {
          for (const auto& kind : kinds) {
            for (int t : thresholds.threads) {
              const RatePrediction p =
                  pr.At(size.geometry, b, table, kind, t, reads);
              const double m =
                  structural::MeasuredRate(size.results, b, table, kind, t);
              if (!(p.rate > 0) || !std::isfinite(m)) continue;
              const double err = p.rate / m - 1;
              std::vector<TableCell> row = {
                  {acc},
                  {b},
                  {table + " " + kind + ", " + structural::Threads(t)},
                  {Count(p.rate) + " [" + Count(p.interval.low) + ", " +
                   Count(p.interval.high) + "]"},
                  {Count(m)},
                  {structural::Signed(err),
                   std::abs(err) <= 0.15 ? Style::kPass : Style::kFail}};
              // Hit cells: the same prediction on the device rate the
              // backend's own files gave at that moment (its device
              // cells), which separates the model's error from the
              // device's difference from the profile.
              const double own = structural::MedianCounter(
                  size.results, b, table, t, results::kDeviceReadsPerS);
              if (kind == results::kKindHit && own > 0) {
                const RatePrediction o =
                    pr.At(size.geometry, b, table, kind, t, reads, t / own);
                const double oerr = o.rate / m - 1;
                row.push_back({Ratio(own / profile.ReadsPerS(t, kPageBytes))});
                row.push_back({Count(o.rate)});
                row.push_back({structural::Signed(oerr), std::abs(oerr) <= 0.15
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
          const double mc = structural::MeasuredRate(size.results, v, gc.table,
                                                     gc.kind, gc.threads);
          const double mb = structural::MeasuredRate(
              size.results, gc.check->baseline, gc.table, gc.kind, gc.threads);
          if (!(cand.rate > 0) || !(base.rate > 0) || !std::isfinite(mc) ||
              !std::isfinite(mb)) {
            continue;
          }
          const structural::RatioValue r =
              structural::CheckRatio(*gc.check, cand, base);
          const double measured =
              gc.check->metric == Metric::kHitReadsPerS ? mc / mb : mb / mc;
          const double err = r.ratio / measured - 1;
          std::vector<TableCell> row = {
              {acc},
              {gc.check->name},
              {v},
              {gc.table + " " + gc.kind + ", " +
               structural::Threads(gc.threads)},
              {RangeText(r.ratio, r.interval)},
              {Ratio(measured)},
              {structural::Signed(err),
               std::abs(err) <= 0.15 ? Style::kPass : Style::kFail}};
          // Hit checks: the same ratio on each backend's own files' device.
          const double oc = structural::MedianCounter(
              size.results, v, gc.table, gc.threads, results::kDeviceReadsPerS);
          const double ob = structural::MedianCounter(
              size.results, gc.check->baseline, gc.table, gc.threads,
              results::kDeviceReadsPerS);
          if (gc.kind == results::kKindHit && oc > 0 && ob > 0) {
            const structural::RatioValue o = structural::CheckRatio(
                *gc.check,
                pr.At(size.geometry, v, gc.table, gc.kind, gc.threads, reads,
                      gc.threads / oc),
                pr.At(size.geometry, gc.check->baseline, gc.table, gc.kind,
                      gc.threads, reads, gc.threads / ob));
            const double oerr = o.ratio / measured - 1;
            row.push_back({Ratio(o.ratio)});
            row.push_back({structural::Signed(oerr), std::abs(oerr) <= 0.15
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

}  // namespace flatbench::report
