// The verdict's wording: the reason paragraph and the one-line summary
// of each judged read path.
#include "report/verdict/verdict_text.h"

#include "dataset/backend_facts.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

std::string Where(const RatioCheck& c) {
  return c.candidate.table + " " + c.candidate.kind + " at " +
         std::to_string(c.candidate.threads) +
         (c.candidate.threads == 1 ? " thread" : " threads");
}

std::string CheckSummary(const RatioCheck& c) {
  const std::string where = Where(c);
  if (!c.available) return c.threshold.name + ": no figure for " + where;
  return c.threshold.name + " " + Ratio(c.ratio) + " [" +
         Ratio(c.interval.low) + ", " + Ratio(c.interval.high) + "] (" +
         (c.threshold.HigherIsBetter() ? "needs ≥ " : "needs ≤ ") +
         Ratio(c.threshold.bound) + ") for " + where;
}

// The first four checks by `summary`, then how many more.
std::string ListChecks(
    const std::vector<const RatioCheck*>& checks,
    std::string (*summary)(const RatioCheck&) = CheckSummary) {
  std::string list;
  for (size_t i = 0; i < checks.size() && i < 4; ++i) {
    list += (i ? "; " : "") + summary(*checks[i]);
  }
  if (checks.size() > 4) {
    list += "; and " + std::to_string(checks.size() - 4) + " more";
  }
  return list;
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
  // Appended piece by piece: g++ 12 misreads " " + temporary as an
  // overlapping copy (-Wrestrict).
  std::string out(" ");
  out.append(std::to_string(beyond.size()))
      .append(" of ")
      .append(std::to_string(v.checks.size()));
  return out +
         " checks are beyond this device's limit for any one-page format: "
         "their bound lies above the device ceiling, the ratio a format "
         "reading only the 4 KiB pages per hit a one-page format must read "
         "would reach at these files' device rates with no CPU time of its "
         "own (with its 95% interval; RESEARCH.md §7): " +
         ListChecks(beyond, BeyondSummary) + ".";
}

std::string NotHeldSummary(const RatioCheck& c) {
  return c.threshold.name + " for " + Where(c) + " measured " + Ratio(c.ratio) +
         ", " + CeilingSummary(c.ceiling);
}

// The sentence on checks whose measured ratio beat their ceiling, or "".
std::string NotHeldSentence(const Verdict& v) {
  std::vector<const RatioCheck*> not_held = v.CeilingNotHeld();
  if (not_held.empty()) return "";
  std::string out(" The device ceiling did not hold for ");
  out.append(std::to_string(not_held.size()))
      .append(not_held.size() == 1 ? " check" : " checks");
  return out +
         ": the measured ratio lies above the device ceiling's 95% "
         "interval, so the ceiling is no limit there and the check is not "
         "marked beyond it: " +
         ListChecks(not_held, NotHeldSummary) + ".";
}

constexpr char kIntervalWords[] =
    "the 95% bootstrap interval of the ratio of medians over the "
    "repetitions";

// A GO's or a NO-GO's reason: the valid run, and its closest check or its
// clear failures (and those within noise).
std::string DecidedReason(const Verdict& v) {
  const std::string n = std::to_string(v.checks.size());
  const std::string where =
      v.thresholds.gate_mode + " mode at " + v.thresholds.gate_scale + " scale";
  if (v.outcome == Outcome::kGo) {
    const RatioCheck* worst = nullptr;
    for (const auto& c : v.checks) {
      if (worst == nullptr || c.Margin() < worst->Margin()) worst = &c;
    }
    return "The run is valid (" + where +
           ", every validity gate passed) and all " + n +
           " ratio checks pass on medians over the repetitions, each with " +
           kIntervalWords + " clear of its bound. The closest to its bound: " +
           (worst ? CheckSummary(*worst) : "none") + ".";
  }
  const std::vector<const RatioCheck*> clear = v.ClearlyFailedChecks();
  const std::vector<const RatioCheck*> noisy = v.NoisyChecks();
  std::string text = "The run is valid (" + where +
                     ", every validity gate passed), but " +
                     std::to_string(clear.size()) + " of " + n +
                     " ratio checks fail, each with " + kIntervalWords +
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

// Why an INCONCLUSIVE run gives no verdict: its failed gates, or its
// checks within noise.
std::string UndecidedWhy(const Verdict& v) {
  const std::string n = std::to_string(v.checks.size());
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
    why = "The run is valid (" + v.thresholds.gate_mode + " mode at " +
          v.thresholds.gate_scale + " scale), but no GO or NO-GO is given.";
  }
  const std::vector<const RatioCheck*> noisy = v.NoisyChecks();
  if (!noisy.empty()) {
    // Appended piece by piece: g++ 12 misreads " " + temporary here as an
    // overlapping copy (-Wrestrict).
    why.append(" ")
        .append(std::to_string(noisy.size()))
        .append(" of ")
        .append(n)
        .append(" checks are within noise (")
        .append(kIntervalWords)
        .append(
            " contains the bound, so the repetitions cannot tell pass from "
            "fail): ")
        .append(ListChecks(noisy))
        .append(".");
  }
  return why;
}

// What the checks would say if the run were valid. A check without a
// figure neither passes nor fails: said apart, as ShortOutcome says it.
std::string ProvisionalOutcome(const Verdict& v) {
  const std::string n = std::to_string(v.checks.size());
  std::vector<const RatioCheck*> failing, missing;
  for (const auto& c : v.checks) {
    if (!c.passed) (c.available ? failing : missing).push_back(&c);
  }
  if (failing.empty() && missing.empty()) {
    return "all " + n + " ratio checks would pass";
  }
  std::string provisional =
      std::to_string(failing.size()) + " of " + n + " ratio checks would fail";
  if (!failing.empty()) {
    provisional.append(" (").append(ListChecks(failing)).append(")");
  }
  if (!missing.empty()) {
    provisional.append(", ")
        .append(std::to_string(missing.size()))
        .append(" have no figure (")
        .append(ListChecks(missing))
        .append(")");
  }
  return provisional;
}

std::string Reason(const Verdict& v) {
  if (v.outcome != Outcome::kInconclusive) return DecidedReason(v);
  return UndecidedWhy(v) + " Provisionally, on these numbers, " +
         ProvisionalOutcome(v) +
         "; this is not a verdict until a valid run at " +
         v.thresholds.gate_scale + " scale with clear intervals confirms it.";
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

std::string VerdictReason(const Verdict& v) {
  return Reason(v) + BeyondSentence(v) + NotHeldSentence(v);
}

std::string CandidateLabel(const std::string& candidate) {
  const dataset::BackendFacts* f = dataset::FindFacts(candidate);
  return f != nullptr && !f->label.empty() ? std::string(f->label) : candidate;
}

std::vector<std::string> VerdictLines(const Verdict& v) {
  std::vector<std::string> out;
  auto line = [](const Verdict& x) {
    std::string text = CandidateLabel(x.thresholds.candidate) + ": " +
                       OutcomeName(x.outcome) + ", " + ShortOutcome(x);
    const size_t beyond = x.BeyondCeiling().size();
    if (beyond > 0) {
      // On a run that is not valid, this too is provisional.
      text.append(x.Valid() ? "; " : "; provisionally ")
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

}  // namespace flatbench::report
