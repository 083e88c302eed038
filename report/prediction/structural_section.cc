// The prediction report's structural section: the device profile, the
// structural prediction at full scale beside the trend, and its validation
// at every measured size (helpers in structural_parts.h).
#include <algorithm>
#include <cmath>
#include <optional>
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

// What every part of the section reads: the sweep, the device profile, the
// thresholds, and the gated cells and candidate variants they imply.
struct StructuralInputs {
  const SweepInput& sweep;
  const DeviceProfile& profile;
  const Thresholds& thresholds;
  std::vector<structural::GatedCell> cells;
  std::vector<std::string> variants;
};

// A prediction's error against the measured figure, marked beyond ±15%.
TableCell ErrorCell(double err) {
  return {structural::Signed(err),
          std::abs(err) <= 0.15 ? Style::kPass : Style::kFail};
}

std::string CellText(const std::string& table, const std::string& kind,
                     int threads) {
  return table + " " + kind + ", " + structural::Threads(threads);
}

// How the structural prediction is made, and c per backend and cell at the
// smallest and largest sizes.
void AddStructuralMethod(Section* s, const StructuralInputs& in) {
  s->blocks.push_back(Paragraph(
      "Each backend's reads/s in a cold cell from the structure of its "
      "reads, not from a trend: the geometric model's 4 KiB pages per read "
      "and the pages one data unit spans (so a RocksDB hit is one read of "
      "8-12 KiB, an arena or LMDB hit one of 4 KiB); c, the time per read "
      "not spent waiting on the device; and the device profile's mean "
      "latency L(T, size) at T reads in flight. The interval takes c at "
      "its lowest and highest pass and L at the profile's fastest and "
      "slowest round, together."));
  s->blocks.push_back(Paragraph(
      "T threads are T readers "
      "that each need c + o of one of the host's cpus per read and then "
      "reads × Z of the device, where o is the rest of the host's busy CPU "
      "per read (the passes' host_cpu_ns_per_read where they carry it, "
      "moved to the priced device by its own work per storage read, else "
      "that work alone: the profile's host_cpu_ns_per_read per storage "
      "read) and Z is what the profile's own readers waited beyond the "
      "host's CPU; reads/s is that closed system's (mean value analysis): "
      "T / (c + o + reads × Z) with few threads, cpus / (c + o) with many, "
      "below both where they meet (bound by: threads or cpus, whichever "
      "bound is lower)."));
  s->blocks.push_back(Paragraph(
      "c is measured where the passes carry cpu_ns_per_read: the worker's "
      "CPU time (user and system) per read, median of the cell's cold "
      "passes at its own thread count (at one thread where the run has "
      "none at that count), which holds the cold read's page fault or read "
      "syscall. One thread pays a sleep and a wake-up per read that many "
      "threads share, so c falls as threads rise; a count's own c prices "
      "that count. Where the run has warm cells it is split into the warm "
      "part (the warm passes' CPU per read) and the cold extra (the rest). "
      "For results without that counter c is a residual: each one-thread "
      "cold pass's 1/reads_per_s less its measured storage reads priced at "
      "its own files' device cell. The residual is shown beside a measured "
      "c: what it holds beyond it is time neither on a CPU nor priced as "
      "device time, such as waiting for a CPU on a loaded host. c per "
      "backend and cell at one thread, with its source, and at the other "
      "thread counts:"));
  const SweepSize& first = in.sweep.sizes.front();
  const SweepSize& last = in.sweep.sizes.back();
  std::vector<const SweepSize*> calibrations = {&first};
  if (&last != &first) calibrations.push_back(&last);
  s->blocks.push_back(TableBlock(structural::CpuTable(
      calibrations, structural::WithBaselines(in.variants, in.thresholds),
      in.thresholds, in.profile)));
}

// Where the profile was measured, and its rate and latency per depth and
// read size.
void AddProfileTable(Section* s, const DeviceProfile& profile) {
  s->blocks.push_back(Paragraph(
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
  s->blocks.push_back(TableBlock(std::move(pt)));
}

// The trend's full-scale ratio for the candidate's own cell, "–" for a
// variant or a cell the trend did not fit.
std::string TrendBeside(const StructuralInputs& in,
                        const std::vector<PredictedCheck>& checks,
                        const structural::GatedCell& gc,
                        const std::string& variant) {
  std::string trend = "–";
  for (const auto& p : checks) {
    if (variant == in.thresholds.candidate && p.fitted &&
        p.threshold.name == gc.check->name && p.table == gc.table &&
        p.kind == gc.kind && p.threads == gc.threads) {
      trend = RangeText(p.trend.predicted, p.trend.interval);
    }
  }
  return trend;
}

// Every gated ratio at full scale, beside the trend's extrapolation.
void AddFullScale(Section* s, const StructuralInputs& in,
                  const std::map<std::string, BackendGeometry>& full,
                  const std::vector<PredictedCheck>& checks) {
  const SweepSize& last = in.sweep.sizes.back();
  const structural::Predictor pr{in.profile, last, kRequiredRamBytes,
                                 in.sweep.MeasuredOn()};
  const uint64_t reads = structural::ReadsPerPass(last);
  Table t;
  t.header = {"check",
              "candidate",
              "cell",
              "structural (interval)",
              "trend (95%)",
              "bound",
              "structural outlook"};
  for (const auto& gc : in.cells) {
    for (const auto& v : in.variants) {
      const RatePrediction cand =
          pr.At(full, v, gc.table, gc.kind, gc.threads, reads);
      const RatePrediction base =
          pr.At(full, gc.check->baseline, gc.table, gc.kind, gc.threads, reads);
      if (!(cand.rate > 0) || !(base.rate > 0)) continue;
      const structural::RatioValue r =
          structural::CheckRatio(*gc.check, cand, base);
      Style style;
      const std::string outlook =
          structural::OutlookOf(*gc.check, r.interval, &style);
      t.rows.push_back({{gc.check->name},
                        {v},
                        {CellText(gc.table, gc.kind, gc.threads)},
                        {RangeText(r.ratio, r.interval)},
                        {TrendBeside(in, checks, gc, v)},
                        {std::string(gc.check->HigherIsBetter() ? "≥ " : "≤ ") +
                         Ratio(gc.check->bound)},
                        {outlook, style}});
    }
  }
  s->blocks.push_back(Paragraph(
      "At full scale on this profile's device and cpus, with c from the "
      "largest size (" +
      Count(static_cast<double>(last.accounts)) +
      " accounts) and the geometry grown to full scale on the RAM "
      "RESEARCH.md requires, beside the trend's extrapolation (the trend "
      "has the candidate's own cells only):"));
  s->blocks.push_back(TableBlock(std::move(t)));
}

// One backend's cell at one size: predicted against measured reads/s, and
// for a hit cell the same on its own files' device rate; nothing when
// either figure is missing.
std::optional<std::vector<TableCell>> RateRow(const structural::Predictor& pr,
                                              const SweepSize& size,
                                              const std::string& b,
                                              const std::string& table,
                                              const std::string& kind, int t) {
  const uint64_t reads = structural::ReadsPerPass(size);
  const RatePrediction p = pr.At(size.geometry, b, table, kind, t, reads);
  const double m = structural::MeasuredRate(size.results, b, table, kind, t);
  if (!(p.rate > 0) || !std::isfinite(m)) return std::nullopt;
  std::vector<TableCell> row = {{Count(static_cast<double>(size.accounts))},
                                {b},
                                {CellText(table, kind, t)},
                                {Count(p.rate) + " [" + Count(p.interval.low) +
                                 ", " + Count(p.interval.high) + "]"},
                                {Count(m)},
                                ErrorCell(p.rate / m - 1)};
  // Hit cells: the same prediction on the device rate the backend's own
  // files gave at that moment (its device cells), which separates the
  // model's error from the device's difference from the profile.
  const double own = structural::MedianCounter(size.results, b, table, t,
                                               results::kDeviceReadsPerS);
  if (kind == results::kKindHit && own > 0) {
    const RatePrediction o =
        pr.At(size.geometry, b, table, kind, t, reads, t / own);
    row.push_back({Ratio(own / pr.profile.ReadsPerS(t, kPageBytes))});
    row.push_back({Count(o.rate)});
    row.push_back(ErrorCell(o.rate / m - 1));
  } else {
    row.insert(row.end(), {{"–"}, {"–"}, {"–"}});
  }
  row.push_back({p.cpu_bound ? "cpus" : "threads"});
  return row;
}

// One gated ratio of one variant at one size: predicted against measured,
// and for a hit check the same on each backend's own files' device;
// nothing when a rate is missing.
std::optional<std::vector<TableCell>> RatioRow(const structural::Predictor& pr,
                                               const SweepSize& size,
                                               const structural::GatedCell& gc,
                                               const std::string& v) {
  const uint64_t reads = structural::ReadsPerPass(size);
  const std::string& baseline = gc.check->baseline;
  const RatePrediction cand =
      pr.At(size.geometry, v, gc.table, gc.kind, gc.threads, reads);
  const RatePrediction base =
      pr.At(size.geometry, baseline, gc.table, gc.kind, gc.threads, reads);
  const double mc =
      structural::MeasuredRate(size.results, v, gc.table, gc.kind, gc.threads);
  const double mb = structural::MeasuredRate(size.results, baseline, gc.table,
                                             gc.kind, gc.threads);
  if (!(cand.rate > 0) || !(base.rate > 0) || !std::isfinite(mc) ||
      !std::isfinite(mb)) {
    return std::nullopt;
  }
  const structural::RatioValue r =
      structural::CheckRatio(*gc.check, cand, base);
  const double measured =
      gc.check->metric == Metric::kHitReadsPerS ? mc / mb : mb / mc;
  std::vector<TableCell> row = {{Count(static_cast<double>(size.accounts))},
                                {gc.check->name},
                                {v},
                                {CellText(gc.table, gc.kind, gc.threads)},
                                {RangeText(r.ratio, r.interval)},
                                {Ratio(measured)},
                                ErrorCell(r.ratio / measured - 1)};
  const double oc = structural::MedianCounter(
      size.results, v, gc.table, gc.threads, results::kDeviceReadsPerS);
  const double ob = structural::MedianCounter(
      size.results, baseline, gc.table, gc.threads, results::kDeviceReadsPerS);
  if (gc.kind == results::kKindHit && oc > 0 && ob > 0) {
    const structural::RatioValue o =
        structural::CheckRatio(*gc.check,
                               pr.At(size.geometry, v, gc.table, gc.kind,
                                     gc.threads, reads, gc.threads / oc),
                               pr.At(size.geometry, baseline, gc.table, gc.kind,
                                     gc.threads, reads, gc.threads / ob));
    row.push_back({Ratio(o.ratio)});
    row.push_back(ErrorCell(o.ratio / measured - 1));
  } else {
    row.insert(row.end(), {{"–"}, {"–"}});
  }
  return row;
}

// Reads/s per backend and cell at every size, predicted against measured.
Table ValidationRateTable(const StructuralInputs& in,
                          const structural::Predictor& pr) {
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
  const std::vector<std::string> backends =
      structural::WithBaselines(in.variants, in.thresholds);
  for (const auto& size : in.sweep.sizes) {
    for (const auto& b : backends) {
      for (const auto& [table, kinds] : in.thresholds.cells) {
        for (const auto& kind : kinds) {
          for (int t : in.thresholds.threads) {
            auto row = RateRow(pr, size, b, table, kind, t);
            if (row) rates.rows.push_back(std::move(*row));
          }
        }
      }
    }
  }
  return rates;
}

// The gated ratios at every size, predicted against measured.
Table ValidationRatioTable(const StructuralInputs& in,
                           const structural::Predictor& pr) {
  Table ratios;
  ratios.header = {"accounts",        "check",
                   "candidate",       "cell",
                   "predicted ratio", "measured",
                   "error",           "predicted on own files' device",
                   "its error"};
  for (const auto& size : in.sweep.sizes) {
    for (const auto& gc : in.cells) {
      for (const auto& v : in.variants) {
        auto row = RatioRow(pr, size, gc, v);
        if (row) ratios.rows.push_back(std::move(*row));
      }
    }
  }
  return ratios;
}

// Validation: every size from its geometry and the profile, c from the
// smallest size.
void AddValidation(Section* s, const StructuralInputs& in) {
  const SweepSize& first = in.sweep.sizes.front();
  const structural::Predictor pr{in.profile, first, kRequiredRamBytes,
                                 in.sweep.MeasuredOn()};
  s->blocks.push_back(Paragraph(
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
  s->blocks.push_back(TableBlock(ValidationRateTable(in, pr)));
  s->blocks.push_back(
      Paragraph("The gated ratios, predicted against "
                "measured at every size:"));
  s->blocks.push_back(TableBlock(ValidationRatioTable(in, pr)));
}

}  // namespace

Section StructuralSection(const SweepInput& sweep, const DeviceProfile& profile,
                          const Thresholds& thresholds,
                          const std::map<std::string, BackendGeometry>& full,
                          const std::vector<PredictedCheck>& checks) {
  Section s{"Structural prediction: geometry, CPU and the device profile", {}};
  const StructuralInputs in{sweep, profile, thresholds,
                            structural::GatedCells(thresholds),
                            structural::Variants(sweep, thresholds.candidate)};
  AddStructuralMethod(&s, in);
  AddProfileTable(&s, profile);
  AddFullScale(&s, in, full, checks);
  AddValidation(&s, in);
  return s;
}

}  // namespace flatbench::report
