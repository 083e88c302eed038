#include "report/verdict/passing_latency.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/results_schema.h"
#include "report/closed_rate.h"
#include "report/device_class.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

constexpr double kInf = std::numeric_limits<double>::infinity();

// R_X(L): X's reads/s on a device whose depth-1 latency is `l`.
double Rate(double c, double n, const LatencyTerms& t, double l) {
  return ClosedRate(t.threads, c, t.cpus, n * t.depth_scaling * l);
}

// f(L) = R_A(L) / R_B(L) - k: the check passes where f >= 0.
double PassMargin(const LatencyTerms& t, double l) {
  return ModelRatio(t, l) - t.bound;
}

// The latencies the search steps through: 0, then 1 ns to 1 s, twenty
// points a decade; past 1 s the ratio is its limit n_B / n_A to well under
// a part in a thousand for any c below a millisecond.
constexpr double kLowest = 1e-9, kHighest = 1.0;
constexpr int kPerDecade = 20;

// The root of f between `a` (where f has sign `at_a`) and `b`, by
// bisection on log(L) (on L from 0).
double Root(const LatencyTerms& t, double a, double b, bool at_a) {
  for (int i = 0; i < 100; ++i) {
    const double mid = a > 0 ? std::sqrt(a * b) : b / 2;
    ((PassMargin(t, mid) >= 0) == at_a ? a : b) = mid;
  }
  return (a + b) / 2;
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
  return Rate(t.cpu_candidate, t.reads_candidate, t, l) /
         Rate(t.cpu_baseline, t.reads_baseline, t, l);
}

std::vector<LatencyRange> PassingLatencies(const LatencyTerms& t) {
  // f is smooth in L: step through the latencies, find each change of
  // sign, and place it by bisection. A pass at the last step extends to
  // every slower device.
  std::vector<double> points = {0};
  const int steps =
      static_cast<int>(std::lround(std::log10(kHighest / kLowest))) *
      kPerDecade;
  for (int i = 0; i <= steps; ++i) {
    points.push_back(kLowest *
                     std::pow(10.0, static_cast<double>(i) / kPerDecade));
  }
  std::vector<LatencyRange> out;
  bool passing = PassMargin(t, 0) >= 0;
  double from = 0;
  for (size_t i = 1; i < points.size(); ++i) {
    const bool now = PassMargin(t, points[i]) >= 0;
    if (now == passing) continue;
    const double edge = Root(t, points[i - 1], points[i], passing);
    if (passing) Append(&out, from, edge);
    from = edge;
    passing = now;
  }
  if (passing) Append(&out, from, kInf);
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
