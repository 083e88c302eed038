// The prediction report's comparison with a measured run on another
// device: the sweep's structural prediction, priced on the device profile
// (the other device's, --device-profile), against a separate bench run
// measured on that device (--measured), gated hit cell by cell, with each
// model term (CPU per read, the host's other CPU per read, storage reads
// per hit, the device's latency at depth) predicted beside measured, so a
// miss can be traced to its term.
#include <cmath>
#include <optional>

#include "common/results_schema.h"
#include "report/numbers.h"
#include "report/prediction/prediction_parts.h"
#include "report/prediction/structural_parts.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using Style = TableCell::Style;

constexpr double kWithin = 0.15;

// What the comparison reads: the sweep's size it predicts from, the
// geometry at the measured run's size, and the measured run.
struct MeasuredInputs {
  const SweepInput& sweep;
  const DeviceProfile& profile;
  const Thresholds& thresholds;
  const MeasuredRun& measured;
  const SweepSize& calibration;
  std::map<std::string, BackendGeometry> geometry;
  uint64_t reads_per_pass = 0;
};

// The sweep size of the measured run's accounts, else the largest.
const SweepSize& CalibrationFor(const SweepInput& sweep, uint64_t accounts) {
  for (const auto& s : sweep.sizes) {
    if (s.accounts == accounts) return s;
  }
  return sweep.sizes.back();
}

// The measured median of a counter over a backend's cold hit passes at
// `threads`, falling back to its store's (a read path without device cells
// of its own reads the store's files).
double MeasuredDeviceRate(const ResultSet& rs, const std::string& b,
                          const std::string& table, int threads) {
  const double own =
      structural::MedianCounter(rs, b, table, threads, r::kDeviceReadsPerS);
  if (std::isfinite(own)) return own;
  return structural::MedianCounter(rs, GeometryBackend(b), table, threads,
                                   r::kDeviceReadsPerS);
}

// Measured storage reads per hit in data units: device requests per hit
// where recorded, else 4 KiB pages over the unit's pages.
double MeasuredOps(const ResultSet& rs, const std::string& b,
                   const std::string& table, int threads, double unit_pages) {
  const double requests = structural::MedianCounter(rs, b, table, threads,
                                                    r::kDeviceRequestsPerRead);
  if (std::isfinite(requests)) return requests;
  const double bytes =
      structural::MedianCounter(rs, b, table, threads, r::kBytesReadPerRead);
  const double faults =
      structural::MedianCounter(rs, b, table, threads, r::kMajorFaultsPerRead);
  const double pages = std::max(std::isfinite(bytes) ? bytes / kPageBytes : 0,
                                std::isfinite(faults) ? faults : 0);
  return pages > 0 ? pages / unit_pages : NAN;
}

// One backend's hit cell: the prediction, the measured rate and the four
// terms, predicted and measured.
struct TermRow {
  double predicted = NAN, measured = NAN;
  double c_pred = NAN, c_meas = NAN;
  double o_pred = NAN, o_meas = NAN;  // The host's other CPU per read.
  double ops_pred = NAN, ops_meas = NAN;
  double lat_pred = NAN, lat_meas = NAN;  // 4 KiB at depth T, seconds.
  double with_c = NAN, with_o = NAN, with_ops = NAN, with_lat = NAN;  // Rates.
};

std::optional<TermRow> TermsOf(const MeasuredInputs& in, const std::string& b,
                               const std::string& table, int t) {
  const structural::Predictor pr{in.profile, in.calibration, kRequiredRamBytes,
                                 in.sweep.MeasuredOn()};
  IoShape shape;
  if (!pr.Shape(in.geometry, b, table, std::string(r::kKindHit),
                in.reads_per_pass, &shape)) {
    return std::nullopt;
  }
  const CpuCost cpu = pr.Cpu(shape, b, table, std::string(r::kKindHit), t);
  const ResultSet& m = in.measured.results;
  TermRow row;
  row.measured =
      structural::MeasuredRate(m, b, table, std::string(r::kKindHit), t);
  if (cpu.passes == 0 || !std::isfinite(row.measured)) return std::nullopt;
  row.predicted = PredictRate(shape, cpu, t, in.profile).rate;
  row.c_pred = cpu.mid;
  row.o_pred = HostCpuPerRead(shape, cpu, t, in.profile);
  row.ops_pred = shape.Ops();
  row.lat_pred =
      in.profile.LatencySeconds(t, kPageBytes, DeviceProfile::Bound::kMid);
  const CpuCost mc = MeasuredCpu(m, b, table, std::string(r::kKindHit), t);
  if (mc.passes > 0) {
    row.c_meas = mc.mid;
    CpuCost swapped = cpu;
    swapped.mid = swapped.low = swapped.high = mc.mid;
    row.with_c = PredictRate(shape, swapped, t, in.profile).rate;
  }
  if (mc.passes > 0 && std::isfinite(mc.host)) {
    row.o_meas = mc.host;
    CpuCost swapped = cpu;
    swapped.host = mc.host;
    row.with_o = PredictRate(shape, swapped, t, in.profile).rate;
  }
  row.ops_meas = MeasuredOps(m, b, table, t, shape.unit_pages);
  if (std::isfinite(row.ops_meas)) {
    IoShape swapped = shape;
    swapped.pages = row.ops_meas * shape.unit_pages;
    row.with_ops = PredictRate(swapped, cpu, t, in.profile).rate;
  }
  const double own = MeasuredDeviceRate(m, b, table, t);
  if (own > 0) {
    row.lat_meas = t / own;
    row.with_lat = PredictRate(shape, cpu, t, in.profile, row.lat_meas).rate;
  }
  return row;
}

TableCell ErrorOf(double predicted, double measured) {
  const double err = predicted / measured - 1;
  if (!std::isfinite(err)) return {"–"};
  return {structural::Signed(err),
          std::abs(err) <= kWithin ? Style::kPass : Style::kFail};
}

// The term whose measured value, put in its predicted one's place, brings
// the prediction closest to the measurement; "–" within 15% already.
std::string MissingTerm(const TermRow& row) {
  auto miss = [&](double rate) {
    return std::isfinite(rate) ? std::abs(std::log(rate / row.measured))
                               : INFINITY;
  };
  const double base = miss(row.predicted);
  if (base <= std::log1p(kWithin)) return "–";
  const std::pair<double, const char*> terms[] = {
      {miss(row.with_c), "CPU per read"},
      {miss(row.with_o), "the host's other CPU per read"},
      {miss(row.with_ops), "storage reads per hit"},
      {miss(row.with_lat), "device latency at depth"}};
  const auto* best = &terms[0];
  for (const auto& term : terms) {
    if (term.first < best->first) best = &term;
  }
  return best->first < base ? best->second : "none alone";
}

std::string PredMeas(double pred, double meas, std::string (*fmt)(double)) {
  return fmt(pred) + " / " + (std::isfinite(meas) ? fmt(meas) : "–");
}
std::string UsText(double s) { return structural::Us(s); }
std::string OpsText(double v) { return Sig(v, 3); }

Table TermTable(const MeasuredInputs& in) {
  Table t;
  t.header = {"backend",
              "cell",
              "predicted reads/s",
              "measured",
              "error",
              "c: predicted / measured",
              "o: predicted / measured",
              "storage reads per hit",
              "4 KiB latency at depth",
              "error with measured c",
              "with measured o",
              "with measured reads",
              "with measured latency",
              "term that misses"};
  for (const auto& b : structural::WithBaselines(
           structural::Variants(in.sweep, in.thresholds.candidate),
           in.thresholds)) {
    for (const auto& [table, kinds] : in.thresholds.cells) {
      for (int threads : in.thresholds.threads) {
        const auto row = TermsOf(in, b, table, threads);
        if (!row) continue;
        t.rows.push_back({{b},
                          {table + " hit, " + structural::Threads(threads)},
                          {Count(row->predicted)},
                          {Count(row->measured)},
                          ErrorOf(row->predicted, row->measured),
                          {PredMeas(row->c_pred, row->c_meas, UsText)},
                          {PredMeas(row->o_pred, row->o_meas, UsText)},
                          {PredMeas(row->ops_pred, row->ops_meas, OpsText)},
                          {PredMeas(row->lat_pred, row->lat_meas, UsText)},
                          ErrorOf(row->with_c, row->measured),
                          ErrorOf(row->with_o, row->measured),
                          ErrorOf(row->with_ops, row->measured),
                          ErrorOf(row->with_lat, row->measured),
                          {MissingTerm(*row)}});
      }
    }
  }
  return t;
}

}  // namespace

MeasuredComparison MeasuredSection(const SweepInput& sweep,
                                   const DeviceProfile& profile,
                                   const Thresholds& thresholds,
                                   const MeasuredRun& measured) {
  const ResultSet& m = measured.results;
  const uint64_t accounts =
      static_cast<uint64_t>(m.Integer(r::kDatasetAccounts.name).value_or(0));
  const uint64_t slots = static_cast<uint64_t>(
      m.Integer(r::kDatasetSlotsPerAccount.name).value_or(0));
  MeasuredInputs in{
      sweep, profile, thresholds, measured, CalibrationFor(sweep, accounts),
      {},    0};
  in.reads_per_pass =
      static_cast<uint64_t>(m.Integer(r::kReadsPerPass.name).value_or(0));
  const bool same_size = in.calibration.accounts == accounts;
  for (const auto& [backend, g] : in.calibration.geometry) {
    in.geometry[backend] =
        same_size ? g : ScaleTo(g, accounts, accounts * slots);
  }
  MeasuredComparison out;
  out.section.title =
      "Predicted on the device profile, against a run measured there";
  Table ratios;
  ratios.header = {"check",     "read path", "cell",
                   "predicted", "measured",  "error"};
  for (const auto& gc : structural::GatedCells(thresholds)) {
    if (gc.kind != r::kKindHit) continue;
    for (const auto& v : structural::Variants(sweep, thresholds.candidate)) {
      const auto cand = TermsOf(in, v, gc.table, gc.threads);
      const auto base = TermsOf(in, gc.check->baseline, gc.table, gc.threads);
      if (!cand || !base) continue;
      const double predicted = cand->predicted / base->predicted;
      const double actual = cand->measured / base->measured;
      ++out.cells;
      out.within += std::abs(predicted / actual - 1) <= kWithin ? 1 : 0;
      ratios.rows.push_back(
          {{gc.check->name},
           {v},
           {gc.table + " hit, " + structural::Threads(gc.threads)},
           {Ratio(predicted)},
           {Ratio(actual)},
           ErrorOf(predicted, actual)});
    }
  }
  out.section.blocks.push_back(Paragraph(
      std::to_string(out.within) + " of " + std::to_string(out.cells) +
      " gated hit cells predicted within " + Percent(kWithin) +
      ". The sweep's structural prediction, priced on " + profile.source +
      ", against the bench run measured in " + measured.name + " (" +
      Count(static_cast<double>(accounts)) + " accounts × " +
      std::to_string(slots) + " slots): the geometry of the sweep's " +
      (same_size ? "size of the same accounts"
                 : "largest size grown to the measured run's") +
      ", c from that size (" +
      Count(static_cast<double>(in.calibration.accounts)) +
      " accounts), and the profile's latency and cpus. No tolerance is "
      "tuned: the 15% mark is the validation's."));
  out.section.blocks.push_back(TableBlock(std::move(ratios)));
  out.section.blocks.push_back(Paragraph(
      "Per backend and cell, each term of the model predicted beside "
      "measured in the run (c: its cold hit passes' cpu_ns_per_read at "
      "the cell's thread count; o, the rest of the host's busy CPU per "
      "read: their host_cpu_ns_per_read, predicted from the sweep's moved "
      "by the device's own work, or from the profile's device work alone "
      "where the sweep's passes lack it; storage reads per hit: device "
      "requests per hit "
      "where recorded, else 4 KiB pages over the data unit's pages; the "
      "latency: T over its own files' device rate), and the prediction "
      "again with each measured term put in its predicted one's place. The "
      "term that misses is the one whose measured value brings the "
      "prediction closest to the measurement."));
  out.section.blocks.push_back(TableBlock(TermTable(in)));
  return out;
}

}  // namespace flatbench::report
