#include "report/verdict/ceiling.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "dataset/names.h"
#include "report/numbers.h"
#include "report/page_share.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

// One device request: a 4 KiB read, as the device cells make them.
constexpr double kRequestBytes = 4096;

// The candidate's device cell, or its base backend's (same files).
const CellStats* DeviceCell(const std::map<CellKey, CellStats>& cells,
                            const CellKey& candidate) {
  CellKey key = candidate;
  key.kind = std::string(r::kKindDevice);
  if (const CellStats* s = MeasuredCell(cells, key)) return s;
  key.backend = dataset::StoreOf(candidate.backend);
  if (key.backend == candidate.backend) return nullptr;
  return MeasuredCell(cells, key);
}

// The device rate of repetition `rep`, or the median when that repetition
// has no device pass.
double DeviceRateOfRep(const CellStats& device, int rep) {
  for (size_t i = 0; i < device.reps.size(); ++i) {
    if (device.reps[i] == rep) return device.rates[i];
  }
  return device.reads_per_s.median;
}

// The pass's distinct keys, median over the cell's passes; NaN when the
// passes do not carry them (PassShare then counts one page per read).
double ReadsPerPass(const CellStats& s) {
  const double keys = s.Of(r::kDistinctKeys).median;
  return std::isfinite(keys) ? keys : NAN;
}

// The figure from R* per repetition of the candidate over the baseline's
// rates.
CeilingFigure Figure(const std::vector<double>& best,
                     const std::vector<double>& baseline) {
  CeilingFigure f;
  f.rate = Median(best);
  f.ratio = f.rate / Median(baseline);
  f.interval = {NAN, NAN};
  if (std::isfinite(f.ratio) && f.ratio > 0) {
    f.interval = BootstrapRatioOfMedians(best, baseline);
  }
  return f;
}

}  // namespace

Ceiling ComputeCeiling(const std::map<CellKey, CellStats>& cells,
                       const RatioThreshold& threshold,
                       const CellKey& candidate, const CellKey& baseline) {
  Ceiling c;
  c.device.interval = c.own.interval = {NAN, NAN};
  if (threshold.metric != Metric::kHitReadsPerS) {
    c.why_not = "a one-page format can answer a miss from memory";
    return c;
  }
  const CellStats* a = MeasuredCell(cells, candidate);
  const CellStats* b = MeasuredCell(cells, baseline);
  const CellStats* dev = DeviceCell(cells, candidate);
  if (a == nullptr || b == nullptr) {
    c.why_not = "a cell is missing";
    return c;
  }
  if (dev == nullptr) {
    c.why_not = "no own-file device cell for " + candidate.backend;
    return c;
  }
  const double threads = candidate.threads;
  const double measured = MeasuredPagesPerRead(*a);
  // Measured waits, generously: absent figures count 0.
  const double requests = std::isfinite(measured) ? measured : 0.0;
  c.table_pages = dev->Of(r::kFilePages).median;
  c.reads_per_pass = ReadsPerPass(*a);
  c.model_pages = PassShare(c.table_pages, 1, c.reads_per_pass);
  c.measured_pages = measured;
  c.pages_per_hit = std::isfinite(measured) ? std::min(c.model_pages, measured)
                                            : c.model_pages;
  // The CPU time the pass itself measured per read (user + system, so the
  // kernel's fault handling too). The residual below holds it and every
  // other delay (a thread waiting for a core, a lock), which a format need
  // not pay: c is the smaller of the two, so the own ceiling errs high.
  const double cpu_ns = a->Of(r::kCpuNsPerRead).median;
  const double cpu_s =
      std::isfinite(cpu_ns) && cpu_ns >= 0 ? cpu_ns * 1e-9 : INFINITY;
  std::vector<double> device, own, cpu;
  c.own_is_measured = !a->rates.empty();
  for (size_t i = 0; i < a->rates.size(); ++i) {
    const double d = DeviceRateOfRep(*dev, a->reps[i]);
    const double wait = threads / d;  // One 4 KiB read at T in flight.
    const double per_read = threads / a->rates[i];
    const double c_i =
        std::min(cpu_s, std::max(0.0, per_read - requests * wait));
    cpu.push_back(c_i);
    device.push_back(threads / (c.pages_per_hit * wait));
    own.push_back(threads / (c.pages_per_hit * wait + c_i));
    c.own_is_measured = c.own_is_measured &&
                        std::abs(own.back() - a->rates[i]) <= 1e-9 * own.back();
  }
  c.device_rate = dev->reads_per_s.median;
  c.cpu_per_read_s = Median(cpu);
  c.device = Figure(device, b->rates);
  c.own = Figure(own, b->rates);
  // The own ceiling is finite whenever the device ceiling is (c >= 0).
  c.available = std::isfinite(c.device.ratio) && c.device.ratio > 0;
  if (!c.available) {
    c.why_not = "the figures give no finite ratio";
    return c;
  }
  c.beyond = threshold.bound > c.device.interval.high;
  return c;
}

std::string CeilingFigureText(const CeilingFigure& f) {
  if (!std::isfinite(f.ratio)) return "–";
  return Ratio(f.ratio) + " [" + Ratio(f.interval.low) + ", " +
         Ratio(f.interval.high) + "]";
}

std::string OwnCeilingText(const Ceiling& c) {
  if (c.own_is_measured) {
    return "this read path already runs at its own ceiling: its time per "
           "read is its device waits plus " +
           Micros(c.cpu_per_read_s * 1e9);
  }
  return "this read path's own ceiling, with its " +
         Micros(c.cpu_per_read_s * 1e9) +
         " of CPU per read: " + CeilingFigureText(c.own);
}

std::string CeilingSummary(const Ceiling& c) {
  if (!c.available) return "no device ceiling (" + c.why_not + ")";
  return "device ceiling " + CeilingFigureText(c.device);
}

double MeasuredPagesPerRead(const CellStats& s) {
  const double faults = s.Of(r::kMajorFaultsPerRead).median;
  const double bytes = s.Of(r::kBytesReadPerRead).median;
  if (!std::isfinite(faults) && !std::isfinite(bytes)) return NAN;
  return std::max(std::isfinite(faults) ? faults : 0.0,
                  std::isfinite(bytes) ? bytes / kRequestBytes : 0.0);
}

}  // namespace flatbench::report
