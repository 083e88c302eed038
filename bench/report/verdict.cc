#include "bench/report/verdict.h"

#include <algorithm>
#include <cmath>

#include "bench/report/format.h"

namespace flatbench::report {
namespace {

constexpr double kTolerance = 1e-9;

std::vector<RatioCheck> ComputeChecks(const Verdict& v) {
  const Thresholds& t = v.thresholds;
  std::vector<RatioCheck> out;
  for (const auto& th : t.checks) {
    for (const auto& [table, kinds] : t.cells) {
      for (const auto& kind : kinds) {
        bool applies = th.metric == Metric::kHitReadsPerS ? kind == "hit"
                                                          : IsMissKind(kind);
        if (!applies) continue;
        for (int threads : t.threads) {
          RatioCheck c;
          c.threshold = th;
          c.candidate = {t.candidate, table, kind, t.gate_mode, threads};
          c.baseline = {th.baseline, table, kind, t.gate_mode, threads};
          auto a = v.cells.find(c.candidate);
          auto b = v.cells.find(c.baseline);
          if (a != v.cells.end() && b != v.cells.end() &&
              a->second.repetitions > 0 && b->second.repetitions > 0) {
            const Spread& x = th.metric == Metric::kHitReadsPerS
                                  ? a->second.reads_per_s
                                  : a->second.cost_per_read_s;
            const Spread& y = th.metric == Metric::kHitReadsPerS
                                  ? b->second.reads_per_s
                                  : b->second.cost_per_read_s;
            c.candidate_value = x.median;
            c.baseline_value = y.median;
            c.ratio = x.median / y.median;
            c.available = std::isfinite(c.ratio);
          }
          if (c.available) {
            c.passed = th.HigherIsBetter()
                           ? c.ratio >= th.bound * (1 - kTolerance)
                           : c.ratio <= th.bound * (1 + kTolerance);
          }
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

std::string CheckSummary(const RatioCheck& c) {
  std::string where = c.candidate.table + " " + c.candidate.kind + " at " +
                      std::to_string(c.candidate.threads) +
                      (c.candidate.threads == 1 ? " thread" : " threads");
  if (!c.available) return c.threshold.name + ": no figure for " + where;
  return c.threshold.name + " " + Ratio(c.ratio) + " (" +
         (c.threshold.HigherIsBetter() ? "needs ≥ " : "needs ≤ ") +
         Ratio(c.threshold.bound) + ") for " + where;
}

// Distance from the bound in the passing direction, relative to the bound.
double Margin(const RatioCheck& c) {
  if (!c.available) return -INFINITY;
  double m = (c.ratio - c.threshold.bound) / c.threshold.bound;
  return c.threshold.HigherIsBetter() ? m : -m;
}

std::string Reason(const Verdict& v) {
  std::vector<const RatioCheck*> failed;
  const RatioCheck* worst = nullptr;
  for (const auto& c : v.checks) {
    if (!c.passed) failed.push_back(&c);
    if (worst == nullptr || Margin(c) < Margin(*worst)) worst = &c;
  }
  std::string list;
  for (size_t i = 0; i < failed.size() && i < 4; ++i) {
    list += (i ? "; " : "") + CheckSummary(*failed[i]);
  }
  if (failed.size() > 4) {
    list += "; and " + std::to_string(failed.size() - 4) + " more";
  }
  const std::string n = std::to_string(v.checks.size());
  const std::string where =
      v.thresholds.gate_mode + " mode at " + v.thresholds.gate_scale + " scale";
  switch (v.outcome) {
    case Outcome::kGo:
      return "The run is valid (" + where +
             ", every validity gate passed) "
             "and all " +
             n +
             " ratio checks pass on medians over the "
             "repetitions. The closest to its bound: " +
             (worst ? CheckSummary(*worst) : "none") + ".";
    case Outcome::kNoGo:
      return "The run is valid (" + where +
             ", every validity gate passed), "
             "but " +
             std::to_string(failed.size()) + " of " + n +
             " ratio checks fail: " + list + ".";
    case Outcome::kInconclusive:
      break;
  }
  std::string gates;
  for (const Gate* g : v.FailedGates()) {
    gates += (gates.empty() ? "" : "; ") + g->name + " (" + g->figure + ")";
  }
  std::string provisional = failed.empty()
                                ? "all " + n + " ratio checks would pass"
                                : std::to_string(failed.size()) + " of " + n +
                                      " ratio checks would fail (" + list + ")";
  return "The run is not valid evidence for a verdict, so no GO or NO-GO is "
         "given. Failed validity gates: " +
         gates +
         ". Provisionally, on "
         "these numbers, " +
         provisional + "; this is not a verdict until a valid run at " +
         v.thresholds.gate_scale + " scale confirms it.";
}

}  // namespace

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kGo:
      return "GO";
    case Outcome::kNoGo:
      return "NO-GO";
    case Outcome::kInconclusive:
      return "INCONCLUSIVE";
  }
  return "?";
}

int OutcomeExitCode(Outcome outcome) {
  switch (outcome) {
    case Outcome::kGo:
      return 0;
    case Outcome::kNoGo:
      return 1;
    case Outcome::kInconclusive:
      return 2;
  }
  return 2;
}

bool IsMissKind(const std::string& kind) { return kind.rfind("miss", 0) == 0; }

bool Verdict::Valid() const { return FailedGates().empty(); }

std::vector<const Gate*> Verdict::FailedGates() const {
  std::vector<const Gate*> out;
  for (const auto& g : gates) {
    if (!g.passed) out.push_back(&g);
  }
  return out;
}

int Verdict::FailedChecks() const {
  int n = 0;
  for (const auto& c : checks) n += c.passed ? 0 : 1;
  return n;
}

const CellStats* DeviceCell(const std::map<CellKey, CellStats>& cells,
                            int threads) {
  auto it = cells.find(CellKey{"device", "raw", "hit", "cold", threads});
  if (it == cells.end() || it->second.repetitions == 0) return nullptr;
  return &it->second;
}

Verdict ComputeVerdict(const ResultSet& results, const Thresholds& thresholds) {
  Verdict v;
  v.thresholds = thresholds;
  v.cells = SummarizeCells(results.passes);
  const Thresholds& t = v.thresholds;
  v.gates = ComputeGates(results, t, v.cells);
  v.checks = ComputeChecks(v);
  v.provisional = v.FailedChecks() == 0 ? Outcome::kGo : Outcome::kNoGo;
  v.outcome = v.Valid() ? v.provisional : Outcome::kInconclusive;
  v.reason = Reason(v);
  return v;
}

}  // namespace flatbench::report
