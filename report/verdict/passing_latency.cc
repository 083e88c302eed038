#include "report/verdict/passing_latency.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/results_schema.h"
#include "report/device_class.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

constexpr double kInf = std::numeric_limits<double>::infinity();

// t_X(L): the host's time per read of X, 1 / R_X(L).
double TimePerRead(double c, double n, const LatencyTerms& t, double l) {
  return std::max((c + n * t.depth_scaling * l) / t.threads, c / t.cpus);
}

// f(L) = t_B(L) - k t_A(L): the check passes where f >= 0.
double PassMargin(const LatencyTerms& t, double l) {
  return TimePerRead(t.cpu_baseline, t.reads_baseline, t, l) -
         t.bound * TimePerRead(t.cpu_candidate, t.reads_candidate, t, l);
}

// f's slope at `l`: each backend's device term where it is device-bound.
double Slope(const LatencyTerms& t, double l) {
  auto of = [&](double c, double n) {
    const double device = (c + n * t.depth_scaling * l) / t.threads;
    return device >= c / t.cpus ? n * t.depth_scaling / t.threads : 0.0;
  };
  return of(t.cpu_baseline, t.reads_baseline) -
         t.bound * of(t.cpu_candidate, t.reads_candidate);
}

// L_X, where X turns from CPU-bound to device-bound; 0 when it never is
// CPU-bound.
double Turn(double c, double n, const LatencyTerms& t) {
  if (t.threads <= t.cpus || !(n * t.depth_scaling > 0)) return 0;
  return c * (t.threads / t.cpus - 1) / (n * t.depth_scaling);
}

void Append(std::vector<LatencyRange>* out, double low, double high) {
  if (!(high >= low)) return;
  if (!out->empty() && out->back().high >= low * (1 - 1e-12)) {
    out->back().high = high;
    return;
  }
  out->push_back({low, high});
}

// The candidate's 1-thread cold hit CPU per read (seconds), NaN if absent.
double CpuOf(const Verdict& v, const std::string& backend,
             const std::string& table, int threads) {
  auto at = [&](int t) {
    const CellStats* s = MeasuredCell(
        v.cells,
        {backend, table, std::string(r::kKindHit), v.thresholds.gate_mode, t});
    const double ns = s == nullptr ? NAN : s->Of(r::kCpuNsPerRead).median;
    return ns >= 0 ? ns * 1e-9 : NAN;
  };
  const double c = at(threads);
  return std::isfinite(c) || threads == 1 ? c : at(1);
}

// Storage reads per hit at `threads`: the device's requests where
// recorded, else 4 KiB pages (verdict/efficiency.h's order).
double ReadsOf(const Verdict& v, const std::string& backend,
               const std::string& table, int threads) {
  const CellStats* s =
      MeasuredCell(v.cells, {backend, table, std::string(r::kKindHit),
                             v.thresholds.gate_mode, threads});
  if (s == nullptr) return NAN;
  const double requests = s->Of(r::kDeviceRequestsPerRead).median;
  return std::isfinite(requests) ? requests : MeasuredPagesPerRead(*s);
}

std::string LatencyUs(double seconds) { return Micros(seconds * 1e9); }

}  // namespace

double ModelRatio(const LatencyTerms& t, double l) {
  return TimePerRead(t.cpu_baseline, t.reads_baseline, t, l) /
         TimePerRead(t.cpu_candidate, t.reads_candidate, t, l);
}

std::vector<LatencyRange> PassingLatencies(const LatencyTerms& t) {
  std::vector<double> points = {0};
  for (double p : {Turn(t.cpu_candidate, t.reads_candidate, t),
                   Turn(t.cpu_baseline, t.reads_baseline, t)}) {
    if (p > 0 && std::isfinite(p)) points.push_back(p);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<LatencyRange> out;
  for (size_t i = 0; i < points.size(); ++i) {
    const double a = points[i];
    const double b = i + 1 < points.size() ? points[i + 1] : kInf;
    // f is linear on [a, b]: its value at a and its slope inside.
    const double fa = PassMargin(t, a);
    const double s = Slope(t, std::isfinite(b) ? (a + b) / 2 : a + 1);
    if (s == 0) {
      if (fa >= 0) Append(&out, a, b);
      continue;
    }
    const double root = a - fa / s;
    if (s > 0) {
      Append(&out, std::max(a, root), b);
    } else {
      Append(&out, a, std::min(b, root));
    }
  }
  return out;
}

PassingLatency PassingLatencyOf(const Verdict& v, const ResultSet& results,
                                const RatioThreshold& threshold,
                                const std::string& candidate,
                                const std::string& table, int threads) {
  PassingLatency p;
  LatencyTerms& t = p.terms;
  t.bound = threshold.bound;
  t.threads = threads;
  t.cpus = static_cast<double>(
      results.Integer(r::kHardwareThreads.name).value_or(0));
  t.depth_scaling = DepthScaling(results, threads);
  t.cpu_candidate = CpuOf(v, candidate, table, threads);
  t.cpu_baseline = CpuOf(v, threshold.baseline, table, threads);
  t.reads_candidate = ReadsOf(v, candidate, table, threads);
  t.reads_baseline = ReadsOf(v, threshold.baseline, table, threads);
  if (!std::isfinite(t.cpu_candidate) || !std::isfinite(t.cpu_baseline)) {
    p.why_not = "no cpu_ns_per_read";
  } else if (!std::isfinite(t.reads_candidate) ||
             !std::isfinite(t.reads_baseline)) {
    p.why_not = "no storage reads per hit";
  } else if (!(t.depth_scaling > 0) || !std::isfinite(t.depth_scaling)) {
    p.why_not = "no device figure at " + std::to_string(threads) + " threads";
  } else if (!(t.cpus >= 1)) {
    p.why_not = "no hardware thread count";
  }
  if (!p.why_not.empty()) return p;
  p.available = true;
  p.passing = PassingLatencies(t);
  return p;
}

std::string PassingLatencyText(const PassingLatency& p) {
  if (!p.available) return "– (" + p.why_not + ")";
  if (p.passing.empty()) {
    return "none (CPU alone: " + Ratio(ModelRatio(p.terms, 0)) + ")";
  }
  std::string out;
  for (const LatencyRange& range : p.passing) {
    std::string part;
    if (range.low <= 0 && !std::isfinite(range.high)) {
      part = "every latency";
    } else if (range.low <= 0) {
      part = "≤ " + LatencyUs(range.high);
    } else if (!std::isfinite(range.high)) {
      part = "≥ " + LatencyUs(range.low);
    } else {
      part = LatencyUs(range.low) + "–" + LatencyUs(range.high);
    }
    out += (out.empty() ? "" : " or ") + part;
  }
  return out;
}

}  // namespace flatbench::report
