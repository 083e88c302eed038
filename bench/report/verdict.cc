#include "bench/report/verdict.h"

#include <algorithm>
#include <cmath>

#include "bench/report/format.h"

namespace flatbench::report {
namespace {

constexpr double kTolerance = 1e-9;
constexpr size_t kMaxDetails = 12;

// Lists the first kMaxDetails offenders; the gate's figure gives the total.
void AddDetail(Gate* gate, size_t* count, const std::string& what) {
  if (++*count <= kMaxDetails) gate->details.push_back(what);
}

// Closes a detail list with how many were left out.
void EndDetails(Gate* gate, size_t count) {
  if (count > kMaxDetails) {
    gate->details.push_back("and " + std::to_string(count - kMaxDetails) +
                            " more");
  }
}

bool InVerdict(const Thresholds& t, const std::string& backend) {
  for (const auto& b : t.Backends()) {
    if (b == backend) return true;
  }
  return false;
}

// Every cell the gate mode needs: verdict backend x table x kind x threads.
std::vector<CellKey> RequiredCells(const Thresholds& t) {
  std::vector<CellKey> out;
  for (const auto& backend : t.Backends()) {
    for (const auto& [table, kinds] : t.cells) {
      for (const auto& kind : kinds) {
        for (int threads : t.threads) {
          out.push_back({backend, table, kind, t.gate_mode, threads});
        }
      }
    }
  }
  return out;
}

Gate ScaleGate(const ResultSet& r, const Thresholds& t) {
  Gate g{"gate scale", r.scale == t.gate_scale,
         "scale " + r.scale + " (gate applies at " + t.gate_scale + ")", {}};
  return g;
}

Gate ContextGate(const ResultSet& r, const std::string& name,
                 const std::string& key, const std::string& want,
                 bool required) {
  std::string have = r.Context(key);
  Gate g;
  g.name = name;
  g.figure = key + " = " + (have.empty() ? "(not recorded)" : have) +
             " (required: " + want + ")";
  // Every file must say `want`; "a / b" from mixed files fails.
  g.passed = have == want;
  if (!required) {
    g.passed = true;
    g.figure += "; not required by these thresholds";
  }
  return g;
}

Gate CellsGate(const Verdict& v, const std::vector<CellKey>& required) {
  Gate g{"required cells present", true, "", {}};
  size_t missing = 0;
  for (const auto& key : required) {
    auto it = v.cells.find(key);
    if (it == v.cells.end() || it->second.repetitions == 0) {
      AddDetail(&g, &missing, "missing: " + key.Name());
    }
  }
  EndDetails(&g, missing);
  g.passed = missing == 0;
  g.figure = std::to_string(required.size() - missing) + " of " +
             std::to_string(required.size()) + " " +
             v.thresholds.gate_mode + " cells present";
  return g;
}

Gate RepetitionsGate(const Verdict& v, const std::vector<CellKey>& required) {
  Gate g{"repetitions", true, "", {}};
  int fewest = -1;
  size_t short_cells = 0;
  for (const auto& key : required) {
    auto it = v.cells.find(key);
    if (it == v.cells.end() || it->second.repetitions == 0) continue;
    int reps = it->second.repetitions;
    fewest = fewest < 0 ? reps : std::min(fewest, reps);
    if (reps < v.thresholds.min_repetitions) {
      AddDetail(&g, &short_cells,
                key.Name() + ": " + std::to_string(reps) + " repetitions");
    }
  }
  EndDetails(&g, short_cells);
  g.passed = short_cells == 0 && fewest >= 0;
  g.figure = "fewest repetitions in a cell: " +
             (fewest < 0 ? std::string("none") : std::to_string(fewest)) +
             " (minimum " + std::to_string(v.thresholds.min_repetitions) + ")";
  return g;
}

// The gate-mode passes of the backends the verdict compares.
std::vector<const Pass*> GatePasses(const ResultSet& r, const Thresholds& t) {
  std::vector<const Pass*> out;
  for (const auto& p : r.passes) {
    if (!p.error && p.cell.mode == t.gate_mode && InVerdict(t, p.cell.backend)) {
      out.push_back(&p);
    }
  }
  return out;
}

Gate EvictionGate(const std::vector<const Pass*>& passes, const Thresholds& t) {
  Gate g{"eviction verified", true, "", {}};
  size_t bad = 0;
  double worst = 0;
  for (const Pass* p : passes) {
    // Opening a backend after eviction legitimately faults in its metadata,
    // so the bound applies to the figure taken right after eviction when
    // the results carry it, else to the one taken just before the pass.
    double resident = std::isnan(p->resident_fraction_after_eviction)
                          ? p->resident_fraction_before
                          : p->resident_fraction_after_eviction;
    worst = std::max(worst, resident);
    bool ok = p->eviction_verified == 1 &&
              resident <= t.max_resident_fraction;
    if (t.gate_mode == "warm") ok = p->eviction_verified == 1;
    if (!ok) {
      AddDetail(&g, &bad,
                p->cell.Name() + "/rep:" + std::to_string(p->rep) +
                    ": resident " + Percent(resident) +
                    (p->eviction_verified == 1 ? "" : ", not verified"));
    }
  }
  EndDetails(&g, bad);
  g.passed = bad == 0 && !passes.empty();
  g.figure = std::to_string(passes.size() - bad) + " of " +
             std::to_string(passes.size()) + " " + t.gate_mode +
             " passes verified; most resident after eviction " +
             Percent(worst) + " (bound " + Percent(t.max_resident_fraction) +
             ")";
  return g;
}

Gate ConcurrencyGate(const std::vector<const Pass*>& passes,
                     const Thresholds& t) {
  Gate g{"full concurrency", true, "", {}};
  size_t bad = 0;
  double lowest = 1;
  for (const Pass* p : passes) {
    double share = p->peak_inflight / p->cell.threads;
    lowest = std::min(lowest, share);
    if (p->concurrency_short != 0 || p->peak_inflight < p->cell.threads) {
      AddDetail(&g, &bad,
                p->cell.Name() + "/rep:" + std::to_string(p->rep) +
                    ": peak in flight " + Sig(p->peak_inflight, 6) + " of " +
                    std::to_string(p->cell.threads));
    }
  }
  EndDetails(&g, bad);
  g.passed = bad == 0 || !t.require_full_concurrency;
  g.figure = std::to_string(bad) + " of " + std::to_string(passes.size()) +
             " passes short of their thread count; lowest peak in flight " +
             Percent(lowest) + " of threads";
  if (!t.require_full_concurrency) g.figure += "; not required";
  return g;
}

Gate SanityGate(const ResultSet& r, const Thresholds& t) {
  Gate g{"sanity checks passed", true, "", {}};
  std::string figure;
  bool all = true;
  for (const auto& backend : t.Backends()) {
    std::string s = r.Context("flatbench.backend." + backend + ".sanity");
    bool ok = s.rfind("passed", 0) == 0 && s.find(" / ") == std::string::npos;
    all = all && ok;
    figure += (figure.empty() ? "" : "; ") + backend + ": " +
              (s.empty() ? "not recorded" : s);
  }
  g.passed = all || !t.require_sanity_passed;
  g.figure = figure;
  if (!t.require_sanity_passed) g.figure += "; not required";
  return g;
}

// Hits must find every key and misses none, or the pass measured the wrong
// thing (a harness bug would otherwise flatter whichever backend has it).
Gate FoundGate(const std::vector<const Pass*>& passes, const Thresholds& t) {
  Gate g{"measured reads returned what they should", true, "", {}};
  size_t bad = 0;
  for (const Pass* p : passes) {
    double want = p->cell.kind == "hit" ? 1.0 : 0.0;
    if (p->found_fraction != want) {
      AddDetail(&g, &bad,
                p->cell.Name() + "/rep:" + std::to_string(p->rep) +
                    ": found fraction " + Sig(p->found_fraction, 6));
    }
  }
  EndDetails(&g, bad);
  g.passed = bad == 0 || !t.require_sanity_passed;
  g.figure = std::to_string(bad) + " of " + std::to_string(passes.size()) +
             " passes with hits not all found or misses found";
  return g;
}

Gate ErrorGate(const ResultSet& r, const Thresholds& t) {
  Gate g{"passes completed", true, "", {}};
  size_t bad = 0;
  for (const auto& p : r.passes) {
    if (p.error && InVerdict(t, p.cell.backend)) {
      AddDetail(&g, &bad,
                p.cell.Name() + "/rep:" + std::to_string(p.rep) + ": " +
                    p.error_message);
    }
  }
  EndDetails(&g, bad);
  g.passed = bad == 0;
  g.figure = std::to_string(bad) + " passes reported an error";
  return g;
}

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
  const std::string where = v.thresholds.gate_mode + " mode at " +
                            v.thresholds.gate_scale + " scale";
  switch (v.outcome) {
    case Outcome::kGo:
      return "The run is valid (" + where + ", every validity gate passed) "
             "and all " + n + " ratio checks pass on medians over the "
             "repetitions. The closest to its bound: " +
             (worst ? CheckSummary(*worst) : "none") + ".";
    case Outcome::kNoGo:
      return "The run is valid (" + where + ", every validity gate passed), "
             "but " + std::to_string(failed.size()) + " of " + n +
             " ratio checks fail: " + list + ".";
    case Outcome::kInconclusive:
      break;
  }
  std::string gates;
  for (const Gate* g : v.FailedGates()) {
    gates += (gates.empty() ? "" : "; ") + g->name + " (" + g->figure + ")";
  }
  std::string provisional =
      failed.empty()
          ? "all " + n + " ratio checks would pass"
          : std::to_string(failed.size()) + " of " + n +
                " ratio checks would fail (" + list + ")";
  return "The run is not valid evidence for a verdict, so no GO or NO-GO is "
         "given. Failed validity gates: " + gates + ". Provisionally, on "
         "these numbers, " + provisional +
         "; this is not a verdict until a valid run at " +
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
  std::vector<CellKey> required = RequiredCells(t);
  std::vector<const Pass*> passes = GatePasses(results, t);
  v.gates.push_back(ScaleGate(results, t));
  v.gates.push_back(ContextGate(results, "release build",
                                "flatbench.build_type", "release",
                                t.require_release_build));
  v.gates.push_back(ContextGate(results, "asserts off", "flatbench.asserts",
                                "off", t.require_asserts_off));
  v.gates.push_back(CellsGate(v, required));
  v.gates.push_back(RepetitionsGate(v, required));
  v.gates.push_back(EvictionGate(passes, t));
  v.gates.push_back(ConcurrencyGate(passes, t));
  v.gates.push_back(SanityGate(results, t));
  v.gates.push_back(FoundGate(passes, t));
  v.gates.push_back(ErrorGate(results, t));
  v.checks = ComputeChecks(v);
  v.provisional = v.FailedChecks() == 0 ? Outcome::kGo : Outcome::kNoGo;
  v.outcome = v.Valid() ? v.provisional : Outcome::kInconclusive;
  v.reason = Reason(v);
  return v;
}

}  // namespace flatbench::report
