// The gates on how the reads met the storage: reads in flight, and the
// device rates of each backend's own files (issue: the same device serves
// recently written or read files several times faster than old ones, so a
// ratio means little unless every backend's files were equally fast).
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "report/numbers.h"
#include "report/verdict/gates.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using Cells = std::map<CellKey, CellStats>;

const char kLikelyCause[] =
    "likely cause: recently written or recently read files served from a "
    "host cache; see RESEARCH.md, Storage that is not uniform";

// The (table, threads) pairs the gate compares device rates over.
std::vector<std::pair<std::string, int>> TableThreads(const Thresholds& t) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [table, kinds] : t.cells) {
    for (int threads : t.threads) out.emplace_back(table, threads);
  }
  return out;
}

const CellStats* DeviceStats(const Cells& cells, const std::string& backend,
                             const std::string& table, const std::string& mode,
                             int threads) {
  return MeasuredCell(
      cells, {backend, table, std::string(r::kKindDevice), mode, threads});
}

// The figure of a storage gate with nothing to compare: failed, and said
// so plainly rather than as a spread of 1.
const char kNotMeasured[] =
    "not measured: the results hold no device cells to compare (a run with "
    "--no-device, or --device-reads 0); the ratios are not normalized by "
    "their files' device rates";

// The end of a storage gate: it passes with no detail against it; its
// figure is kNotMeasured when nothing could be compared, and names the
// likely cause only when a rate really was off (`exceeded`).
void FinishStorageGate(Gate* g, size_t bad, size_t compared, size_t exceeded,
                       std::string figure) {
  EndDetails(g, bad);
  g->passed = bad == 0;
  if (compared == 0) {
    g->figure = kNotMeasured;
    return;
  }
  g->figure = std::move(figure);
  if (exceeded > 0) g->figure += "; " + std::string(kLikelyCause);
}

std::string NotApplicable(const Thresholds& t) {
  return "not applicable: device cells are measured in cold modes, the gate "
         "mode is " +
         t.gate_mode;
}

}  // namespace

double DeviceRate(const Cells& cells, const std::string& backend,
                  const std::string& table, const std::string& mode,
                  int threads) {
  const CellStats* s = DeviceStats(cells, backend, table, mode, threads);
  return s ? s->reads_per_s.median : NAN;
}

Gate ConcurrencyGate(const ResultSet& res, const Thresholds& t,
                     const std::vector<const Pass*>& passes) {
  Gate g{"concurrency", true, "", {}};
  auto hw = res.Integer(r::kHardwareThreads.name);
  size_t bad = 0, bound = 0;
  double lowest = INFINITY;
  for (const Pass* p : passes) {
    // Device cells are the reference, not a gated cell; their figures feed
    // the uniformity and drift gates.
    if (p->cell.kind == r::kKindDevice) continue;
    const int threads = p->cell.threads;
    if (p->Get(r::kStorageBound) == 1) {
      // Reads that wait on storage overlap only if the threads really ran
      // together: judge the mean in flight, not one instant's peak.
      ++bound;
      double share = p->Get(r::kMeanInflight) / threads;
      lowest = std::min(lowest, share);
      if (!(share >= t.min_mean_inflight_share)) {
        AddDetail(&g, &bad,
                  p->Name() + ": mean in flight " +
                      Sig(p->Get(r::kMeanInflight), 3) + " of " +
                      std::to_string(threads));
      }
    } else if (!hw || *hw < threads) {
      // CPU-bound reads are sub-microsecond and rarely overlap: what makes
      // them concurrent is a core per thread.
      AddDetail(&g, &bad,
                p->Name() + ": CPU-bound, " + std::to_string(threads) +
                    " threads on " + (hw ? std::to_string(*hw) : "?") +
                    " hardware threads");
    }
  }
  EndDetails(&g, bad);
  g.passed = bad == 0 || !t.require_full_concurrency;
  g.figure = std::to_string(bad) + " of " + std::to_string(passes.size()) +
             " passes short; " + std::to_string(bound) +
             " storage-bound, lowest mean in flight " +
             (std::isfinite(lowest) ? Percent(lowest) : "–") +
             " of threads (bound " + Percent(t.min_mean_inflight_share) + ")";
  if (!t.require_full_concurrency) g.figure += "; not required";
  return g;
}

Gate UniformityGate(const Thresholds& t, const Cells& cells) {
  Gate g{"storage uniformity", true, "", {}};
  if (!r::IsColdMode(t.gate_mode)) {
    g.figure = NotApplicable(t);
    return g;
  }
  size_t bad = 0, compared = 0, spread_bad = 0;
  double worst = 1;
  for (const auto& [table, threads] : TableThreads(t)) {
    std::string lo_b, hi_b, rates;
    double lo = INFINITY, hi = 0;
    for (const auto& b : t.Backends()) {
      double rate = DeviceRate(cells, b, table, t.gate_mode, threads);
      rates += (rates.empty() ? "" : ", ") + b + " " + Count(rate);
      if (!std::isfinite(rate)) {
        AddDetail(&g, &bad,
                  "no device cells: " + b + "/" + table + "/device/" +
                      t.gate_mode + "/threads:" + std::to_string(threads));
        continue;
      }
      if (rate < lo) lo = rate, lo_b = b;
      if (rate > hi) hi = rate, hi_b = b;
    }
    if (lo_b.empty()) continue;
    ++compared;
    double spread = hi / lo;
    worst = std::max(worst, spread);
    if (spread > t.max_device_rate_spread) {
      ++spread_bad;
      AddDetail(&g, &bad,
                table + " at " + std::to_string(threads) + " threads: " + hi_b +
                    "'s files read at " + Ratio(spread) + "x " + lo_b + "'s (" +
                    rates + " reads/s)");
    }
  }
  FinishStorageGate(&g, bad, compared, spread_bad,
                    "largest max/min of the backends' own-file device rates " +
                        Ratio(worst) + " (bound " +
                        Ratio(t.max_device_rate_spread) + ")");
  return g;
}

namespace {

// One gap of a resumed run: the position of the first pass after it in its
// file, and its length.
struct Gap {
  std::string file;
  double order = 0;
  double seconds = 0;
};

std::vector<Gap> Gaps(const ResultSet& res) {
  std::vector<Gap> out;
  for (const Pass& p : res.passes) {
    const double s = p.Get(r::kInterruptedBeforeS);
    if (!p.error && std::isfinite(s)) {
      out.push_back({p.file, p.Get(r::kPassOrder), s});
    }
  }
  std::sort(out.begin(), out.end(), [](const Gap& a, const Gap& b) {
    return std::tie(a.file, a.order) < std::tie(b.file, b.order);
  });
  return out;
}

// A backend's device rate across `gap`: geometric means over (table,
// threads) of the gate mode's device pass just before it and the one just
// after, in its file; n counts the cells with both.
struct Across {
  double before = 0, after = 0;
  int n = 0;
};

Across DeviceAcross(const ResultSet& res, const Thresholds& t,
                    const std::string& backend, const Gap& gap) {
  double log_before = 0, log_after = 0;
  Across a;
  for (const auto& [table, threads] : TableThreads(t)) {
    const Pass *before = nullptr, *after = nullptr;
    for (const Pass& p : res.passes) {
      if (p.error || p.file != gap.file || p.cell.backend != backend ||
          p.cell.kind != r::kKindDevice || p.cell.mode != t.gate_mode ||
          p.cell.table != table || p.cell.threads != threads) {
        continue;
      }
      const double o = p.Get(r::kPassOrder);
      if (o < gap.order && (!before || o > before->Get(r::kPassOrder))) {
        before = &p;
      }
      if (o >= gap.order && (!after || o < after->Get(r::kPassOrder))) {
        after = &p;
      }
    }
    if (!before || !after) continue;
    log_before += std::log(before->Get(r::kReadsPerS));
    log_after += std::log(after->Get(r::kReadsPerS));
    ++a.n;
  }
  if (a.n > 0) {
    a.before = std::exp(log_before / a.n);
    a.after = std::exp(log_after / a.n);
  }
  return a;
}

Gate DriftGateOverRuns(const Thresholds& t, const Cells& cells) {
  Gate g{"device drift", true, "", {}};
  if (!r::IsColdMode(t.gate_mode)) {
    g.figure = NotApplicable(t);
    return g;
  }
  size_t bad = 0, measured = 0, drift_bad = 0;
  double worst = 1;
  for (const auto& b : t.Backends()) {
    // Geometric means of the first and the last repetition's device rates
    // over every (table, threads).
    double log_first = 0, log_last = 0;
    int n = 0;
    for (const auto& [table, threads] : TableThreads(t)) {
      const CellStats* s = DeviceStats(cells, b, table, t.gate_mode, threads);
      if (s == nullptr || s->rates.size() < 2) continue;
      log_first += std::log(s->rates.front());
      log_last += std::log(s->rates.back());
      ++n;
    }
    if (n == 0) {
      AddDetail(&g, &bad, b + ": no device cells with two repetitions");
      continue;
    }
    ++measured;
    double first = std::exp(log_first / n), last = std::exp(log_last / n);
    double drift = std::max(first, last) / std::min(first, last);
    worst = std::max(worst, drift);
    if (drift > t.max_device_drift) {
      ++drift_bad;
      AddDetail(&g, &bad,
                b + ": own-file device rate " + Count(first) +
                    " reads/s in the first repetition, " + Count(last) +
                    " in the last (" + Ratio(drift) +
                    "x, geometric mean "
                    "over tables and thread counts)");
    }
  }
  FinishStorageGate(&g, bad, measured, drift_bad,
                    "largest first/last change of a backend's device rate " +
                        Ratio(worst) + " (bound " + Ratio(t.max_device_drift) +
                        ")");
  return g;
}

}  // namespace

Gate DriftGate(const ResultSet& res, const Thresholds& t, const Cells& cells) {
  Gate g = DriftGateOverRuns(t, cells);
  const std::vector<Gap> gaps = Gaps(res);
  if (gaps.empty() || !r::IsColdMode(t.gate_mode)) return g;
  // The gate's details so far were capped and counted by EndDetails; the
  // interruptions' own are added after them.
  size_t bad = 0;
  double longest = 0, worst = 1;
  for (const Gap& gap : gaps) {
    longest = std::max(longest, gap.seconds);
    const std::string where = "the interruption of " + Seconds(gap.seconds) +
                              " before pass " + Count(gap.order) + " of " +
                              gap.file;
    if (gap.seconds > r::kMaxInterruptionSeconds) {
      AddDetail(&g, &bad,
                where + ": longer than the " +
                    Seconds(r::kMaxInterruptionSeconds) +
                    " a run may be interrupted for; start the run over");
    }
    for (const auto& b : t.Backends()) {
      const Across a = DeviceAcross(res, t, b, gap);
      if (a.n == 0) continue;
      const double drift =
          std::max(a.before, a.after) / std::min(a.before, a.after);
      worst = std::max(worst, drift);
      if (drift > t.max_device_drift) {
        AddDetail(&g, &bad,
                  b + ": own-file device rate " + Count(a.before) +
                      " reads/s before " + where + ", " + Count(a.after) +
                      " after (" + Ratio(drift) + "x)");
      }
    }
  }
  EndDetails(&g, bad);
  if (bad > 0) g.passed = false;
  g.figure += "; interrupted " + std::to_string(gaps.size()) +
              (gaps.size() == 1 ? " time" : " times") + " (longest gap " +
              Seconds(longest) + ", limit " +
              Seconds(r::kMaxInterruptionSeconds) +
              "), largest change of a device rate across a gap " + Ratio(worst);
  return g;
}

}  // namespace flatbench::report
