#include "report/verdict.h"

#include <algorithm>
#include <cmath>
#include <set>

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
  c.ceiling = ComputeCeiling(v.cells, th, c.candidate, c.baseline);
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

std::string Where(const RatioCheck& c);

std::string CheckSummary(const RatioCheck& c) {
  const std::string where = Where(c);
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

std::string Where(const RatioCheck& c) {
  return c.candidate.table + " " + c.candidate.kind + " at " +
         std::to_string(c.candidate.threads) +
         (c.candidate.threads == 1 ? " thread" : " threads");
}

std::string BeyondSummary(const RatioCheck& c) {
  return c.threshold.name + " for " + Where(c) + " needs " +
         (c.threshold.HigherIsBetter() ? "≥ " : "≤ ") +
         Ratio(c.threshold.bound) + ", " + CeilingSummary(c.ceiling);
}

// The sentence on checks no one-page format could pass here, or "".
std::string BeyondSentence(const Verdict& v) {
  std::vector<const RatioCheck*> beyond = v.BeyondCeiling();
  if (beyond.empty()) return "";
  std::string list;
  for (size_t i = 0; i < beyond.size() && i < 4; ++i) {
    list += (i ? "; " : "") + BeyondSummary(*beyond[i]);
  }
  if (beyond.size() > 4) {
    list += "; and " + std::to_string(beyond.size() - 4) + " more";
  }
  // Appended piece by piece: g++ 12 misreads " " + temporary as an
  // overlapping copy (-Wrestrict).
  std::string out(" ");
  out.append(std::to_string(beyond.size()))
      .append(" of ")
      .append(std::to_string(v.checks.size()));
  return out +
         " checks are beyond this device's limit for any one-page format: "
         "their bound lies above the ratio an arena making exactly one 4 KiB "
         "storage read per hit would reach on these files' device rates "
         "(the ceiling, with its 95% interval; RESEARCH.md §7): " +
         list + ".";
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
    case Outcome::kNoGo: {
      std::vector<const RatioCheck*> clear = v.ClearlyFailedChecks();
      std::string text = "The run is valid (" + where +
                         ", every validity gate passed), but " +
                         std::to_string(clear.size()) + " of " + n +
                         " ratio checks fail, each with " + interval_words +
                         " clear of its bound: " + ListChecks(clear) + ".";
      if (!noisy.empty()) {
        text.append(" A clear failure decides the verdict; ")
            .append(std::to_string(noisy.size()))
            .append(" other checks are within noise: ")
            .append(ListChecks(noisy))
            .append(".");
      }
      return text;
    }
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

// Applies the thresholds to one candidate.
Verdict JudgeCandidate(const ResultSet& results, const Thresholds& thresholds) {
  Verdict v;
  v.thresholds = thresholds;
  v.cells = SummarizeCells(results.passes);
  v.gates = ComputeGates(results, v.thresholds, v.cells);
  v.checks = ComputeChecks(v);
  v.provisional = v.FailedChecks() == 0 ? Outcome::kGo : Outcome::kNoGo;
  if (!v.Valid()) {
    v.outcome = Outcome::kInconclusive;
  } else if (!v.ClearlyFailedChecks().empty()) {
    v.outcome = Outcome::kNoGo;
  } else if (v.FailedChecks() == 0 && v.NoisyChecks().empty()) {
    v.outcome = Outcome::kGo;
  } else {
    v.outcome = Outcome::kInconclusive;
  }
  v.reason = Reason(v) + BeyondSentence(v);
  return v;
}

// The thresholds with `variant` as the candidate: each check's name says
// which read path it judges.
Thresholds ForVariant(const Thresholds& t, const std::string& variant) {
  Thresholds out = t;
  const std::string prefix = t.candidate + "/";
  for (auto& check : out.checks) {
    if (check.name.rfind(prefix, 0) == 0) {
      check.name = variant + "/" + check.name.substr(prefix.size());
    } else {
      check.name = variant + ": " + check.name;
    }
  }
  out.candidate = variant;
  return out;
}

std::string ShortOutcome(const Verdict& v) {
  const std::string n = std::to_string(v.checks.size());
  switch (v.outcome) {
    case Outcome::kGo:
      return "all " + n + " checks pass clear of their bounds";
    case Outcome::kNoGo:
      return std::to_string(v.ClearlyFailedChecks().size()) + " of " + n +
             " checks fail clear of their bounds";
    case Outcome::kInconclusive:
      break;
  }
  if (!v.Valid()) {
    std::string gates;
    for (const Gate* g : v.FailedGates()) {
      gates += (gates.empty() ? "" : ", ") + g->name;
    }
    int failed = 0, missing = 0;
    for (const auto& c : v.checks) {
      missing += c.available ? 0 : 1;
      failed += c.available && !c.passed ? 1 : 0;
    }
    std::string provisional =
        failed == 0 && missing == 0
            ? "all " + n + " checks would pass"
            : std::to_string(failed) + " of " + n + " checks would fail";
    if (missing > 0) {
      provisional.append(", ")
          .append(std::to_string(missing))
          .append(" have no figure");
    }
    return "not valid evidence (failed gates: " + gates + "); provisionally " +
           provisional;
  }
  return std::to_string(v.NoisyChecks().size()) + " of " + n +
         " checks within noise, none failing clearly";
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

std::vector<const RatioCheck*> Verdict::ClearlyFailedChecks() const {
  std::vector<const RatioCheck*> out;
  for (const auto& c : checks) {
    if (c.ClearlyFailed()) out.push_back(&c);
  }
  return out;
}

std::vector<const RatioCheck*> Verdict::BeyondCeiling() const {
  std::vector<const RatioCheck*> out;
  for (const auto& c : checks) {
    if (c.ceiling.beyond) out.push_back(&c);
  }
  return out;
}

bool IsReadPathOf(const std::string& backend, const std::string& candidate) {
  return backend.size() > candidate.size() + 1 &&
         backend.compare(0, candidate.size(), candidate) == 0 &&
         backend[candidate.size()] == '+';
}

std::string CandidateLabel(const std::string& candidate) {
  return candidate == "arena" ? "arena (mmap)" : candidate;
}

std::vector<std::string> VerdictLines(const Verdict& v) {
  std::vector<std::string> out;
  auto line = [](const Verdict& x) {
    std::string text = CandidateLabel(x.thresholds.candidate) + ": " +
                       OutcomeName(x.outcome) + ", " + ShortOutcome(x);
    const size_t beyond = x.BeyondCeiling().size();
    if (beyond > 0) {
      text.append("; ")
          .append(std::to_string(beyond))
          .append(beyond == 1 ? " check is" : " checks are")
          .append(" beyond this device's limit for any one-page format");
    }
    return text;
  };
  out.push_back(line(v));
  for (const auto& variant : v.variants) out.push_back(line(variant));
  return out;
}

std::vector<const RatioCheck*> Verdict::NoisyChecks() const {
  std::vector<const RatioCheck*> out;
  for (const auto& c : checks) {
    if (c.within_noise) out.push_back(&c);
  }
  return out;
}

Verdict ComputeVerdict(const ResultSet& results, const Thresholds& thresholds) {
  Verdict v = JudgeCandidate(results, thresholds);
  std::set<std::string> variants;
  for (const auto& p : results.passes) {
    if (IsReadPathOf(p.cell.backend, thresholds.candidate)) {
      variants.insert(p.cell.backend);
    }
  }
  for (const auto& name : variants) {
    v.variants.push_back(JudgeCandidate(results, ForVariant(thresholds, name)));
  }
  return v;
}

}  // namespace flatbench::report
