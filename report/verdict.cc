#include "report/verdict.h"

#include <algorithm>
#include <cmath>

#include "report/format.h"

namespace flatbench::report {
namespace {

constexpr double kTolerance = 1e-9;

RatioCheck MakeCheck(const Verdict& v, const RatioThreshold& th,
                     const std::string& table, const std::string& kind,
                     int threads) {
  const Thresholds& t = v.thresholds;
  RatioCheck c;
  c.threshold = th;
  c.candidate = {t.candidate, table, kind, t.gate_mode, threads};
  c.baseline = {th.baseline, table, kind, t.gate_mode, threads};
  c.interval = {NAN, NAN};
  auto a = v.cells.find(c.candidate);
  auto b = v.cells.find(c.baseline);
  if (a == v.cells.end() || b == v.cells.end() || a->second.repetitions == 0 ||
      b->second.repetitions == 0) {
    return c;
  }
  const bool hit = th.metric == Metric::kHitReadsPerS;
  const std::vector<double>& x = hit ? a->second.rates : a->second.costs;
  const std::vector<double>& y = hit ? b->second.rates : b->second.costs;
  c.candidate_value = Median(x);
  c.baseline_value = Median(y);
  c.ratio = c.candidate_value / c.baseline_value;
  c.available = std::isfinite(c.ratio);
  if (!c.available) return c;
  c.passed = th.HigherIsBetter() ? c.ratio >= th.bound * (1 - kTolerance)
                                 : c.ratio <= th.bound * (1 + kTolerance);
  c.interval = BootstrapRatioOfMedians(x, y);
  c.within_noise = c.interval.Contains(th.bound);
  return c;
}

std::vector<RatioCheck> ComputeChecks(const Verdict& v) {
  const Thresholds& t = v.thresholds;
  std::vector<RatioCheck> out;
  for (const auto& th : t.checks) {
    for (const auto& [table, kinds] : t.cells) {
      for (const auto& kind : kinds) {
        bool applies = th.metric == Metric::kHitReadsPerS
                           ? kind == results::kKindHit
                           : results::IsMissKind(kind);
        if (!applies) continue;
        for (int threads : t.threads) {
          out.push_back(MakeCheck(v, th, table, kind, threads));
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
  return c.threshold.name + " " + Ratio(c.ratio) + " [" +
         Ratio(c.interval.low) + ", " + Ratio(c.interval.high) + "] (" +
         (c.threshold.HigherIsBetter() ? "needs ≥ " : "needs ≤ ") +
         Ratio(c.threshold.bound) + ") for " + where;
}

std::string ListChecks(const std::vector<const RatioCheck*>& checks) {
  std::string list;
  for (size_t i = 0; i < checks.size() && i < 4; ++i) {
    list += (i ? "; " : "") + CheckSummary(*checks[i]);
  }
  if (checks.size() > 4) {
    list += "; and " + std::to_string(checks.size() - 4) + " more";
  }
  return list;
}

std::string Reason(const Verdict& v) {
  std::vector<const RatioCheck*> failed;
  const RatioCheck* worst = nullptr;
  for (const auto& c : v.checks) {
    if (!c.passed) failed.push_back(&c);
    if (worst == nullptr || c.Margin() < worst->Margin()) worst = &c;
  }
  const std::vector<const RatioCheck*> noisy = v.NoisyChecks();
  const std::string n = std::to_string(v.checks.size());
  const std::string where =
      v.thresholds.gate_mode + " mode at " + v.thresholds.gate_scale + " scale";
  const std::string interval_words =
      "the 95% bootstrap interval of the ratio of medians over the "
      "repetitions";
  switch (v.outcome) {
    case Outcome::kGo:
      return "The run is valid (" + where +
             ", every validity gate passed) and all " + n +
             " ratio checks pass on medians over the repetitions, each with " +
             interval_words +
             " clear of its bound. The closest to its "
             "bound: " +
             (worst ? CheckSummary(*worst) : "none") + ".";
    case Outcome::kNoGo:
      return "The run is valid (" + where +
             ", every validity gate passed), but " +
             std::to_string(failed.size()) + " of " + n +
             " ratio checks fail, each with " + interval_words +
             " clear of its bound: " + ListChecks(failed) + ".";
    case Outcome::kInconclusive:
      break;
  }
  std::string why;
  if (!v.Valid()) {
    std::string gates;
    for (const Gate* g : v.FailedGates()) {
      gates += (gates.empty() ? "" : "; ") + g->name + " (" + g->figure + ")";
    }
    why =
        "The run is not valid evidence for a verdict, so no GO or NO-GO is "
        "given. Failed validity gates: " +
        gates + ".";
  } else {
    why = "The run is valid (" + where + "), but no GO or NO-GO is given.";
  }
  if (!noisy.empty()) {
    // Appended piece by piece: g++ 12 misreads " " + temporary here as an
    // overlapping copy (-Wrestrict).
    why.append(" ")
        .append(std::to_string(noisy.size()))
        .append(" of ")
        .append(n)
        .append(" checks are within noise (")
        .append(interval_words)
        .append(
            " contains the bound, so the repetitions cannot tell pass from "
            "fail): ")
        .append(ListChecks(noisy))
        .append(".");
  }
  std::string provisional = failed.empty()
                                ? "all " + n + " ratio checks would pass"
                                : std::to_string(failed.size()) + " of " + n +
                                      " ratio checks would fail (" +
                                      ListChecks(failed) + ")";
  return why + " Provisionally, on these numbers, " + provisional +
         "; this is not a verdict until a valid run at " +
         v.thresholds.gate_scale + " scale with clear intervals confirms it.";
}

}  // namespace

double RatioCheck::Margin() const {
  if (!available) return -INFINITY;
  double m = (ratio - threshold.bound) / threshold.bound;
  return threshold.HigherIsBetter() ? m : -m;
}

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

std::vector<const RatioCheck*> Verdict::NoisyChecks() const {
  std::vector<const RatioCheck*> out;
  for (const auto& c : checks) {
    if (c.within_noise) out.push_back(&c);
  }
  return out;
}

Verdict ComputeVerdict(const ResultSet& results, const Thresholds& thresholds) {
  Verdict v;
  v.thresholds = thresholds;
  v.cells = SummarizeCells(results.passes);
  v.gates = ComputeGates(results, v.thresholds, v.cells);
  v.checks = ComputeChecks(v);
  v.provisional = v.FailedChecks() == 0 ? Outcome::kGo : Outcome::kNoGo;
  v.outcome = v.Valid() && v.NoisyChecks().empty() ? v.provisional
                                                   : Outcome::kInconclusive;
  v.reason = Reason(v);
  return v;
}

}  // namespace flatbench::report
