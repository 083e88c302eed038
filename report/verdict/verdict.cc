#include "report/verdict/verdict.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "common/exit_codes.h"
#include "dataset/names.h"
#include "report/verdict/verdict_text.h"

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
  const CellStats* a = MeasuredCell(v.cells, c.candidate);
  const CellStats* b = MeasuredCell(v.cells, c.baseline);
  if (a == nullptr || b == nullptr) return c;
  const bool hit = th.metric == Metric::kHitReadsPerS;
  const std::vector<double>& x = hit ? a->rates : a->costs;
  const std::vector<double>& y = hit ? b->rates : b->costs;
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
  // A measured ratio above the device ceiling's interval shows the ceiling
  // is no limit here (the device served the pass faster than its device
  // cell).
  c.ceiling.held =
      !c.ceiling.available || !(c.ratio > c.ceiling.device.interval.high);
  // A check that passes shows its read path beat the premise (fewer
  // storage reads per hit, say from a cache): not beyond either.
  c.ceiling.beyond = c.ceiling.beyond && !c.passed && c.ceiling.held;
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
  v.reason = VerdictReason(v);
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
      return kExitGo.code;
    case Outcome::kNoGo:
      return kExitNoGo.code;
    case Outcome::kInconclusive:
      return kExitInconclusive.code;
  }
  return kExitInconclusive.code;
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

std::vector<const RatioCheck*> Verdict::CeilingNotHeld() const {
  std::vector<const RatioCheck*> out;
  for (const auto& c : checks) {
    if (!c.ceiling.held) out.push_back(&c);
  }
  return out;
}

bool IsReadPathOf(const std::string& backend, const std::string& candidate) {
  return backend != candidate && dataset::StoreOf(backend) == candidate;
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
