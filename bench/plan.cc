#include "bench/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>
#include <utility>

#include "common/files.h"
#include "common/text.h"
#include "dataset/names.h"

namespace flatbench::bench {
namespace {

std::string DescribeScope(const PlanInput& in, const BackendScope& sc) {
  const ScheduleOptions& o = in.schedule;
  std::string out;
  for (Mode m : o.modes) {
    if (!sc.modes.empty() &&
        std::find(sc.modes.begin(), sc.modes.end(), m) == sc.modes.end()) {
      continue;
    }
    std::string part = ModeName(m);
    if (!sc.only.empty()) {
      int n = 0;
      for (const auto& c : sc.only) n += c.first == m;
      if (n == 0) continue;
      part += " " + std::to_string(n) + " cell" + (n > 1 ? "s" : "") + " x 1";
    } else {
      auto r = sc.read_repetitions.find(m);
      auto p = sc.op_repetitions.find(m);
      const int reads =
          r == sc.read_repetitions.end() ? o.repetitions : r->second;
      const int ops = p == sc.op_repetitions.end() ? o.repetitions : p->second;
      part += " x" + std::to_string(reads);
      if (ops != reads && (o.scan || o.startup)) {
        part += std::string(" (") +
                (o.scan && o.startup ? "scans, startup"
                 : o.scan            ? "scans"
                                     : "startup") +
                " x" + std::to_string(ops) + ")";
      }
    }
    if (!out.empty()) out += ", ";
    out += part;
  }
  return out.empty() ? "nothing" : out;
}

BackendFacts FactsOf(const PlanInput& in, const std::string& backend) {
  auto f = in.facts.find(backend);
  return f == in.facts.end() ? BackendFacts() : f->second;
}

}  // namespace

double PlannedStepSeconds(const PlanInput& in, const Step& step) {
  if (in.calibration && in.calibration->same_run) {
    auto it = in.calibration->step_seconds.find(StepKey(step));
    if (it != in.calibration->step_seconds.end()) return it->second;
  }
  const BackendFacts facts = FactsOf(in, step.backend);
  const BackendCost cost = CostOf(step.backend);
  double secs =
      EstimateStep(step, in.spec, facts, cost, in.host, in.drop_caches);
  if (step.mode == Mode::kWarm && step.cell.op == Op::kStartup) {
    secs += WarmBeginSeconds(facts, cost, in.spec);  // Warmed again.
  }
  return secs;
}

namespace {

// One repetition of every mode's cells; every repetition of the gate
// mode's point reads when `gate_reads` (the gated share).
BackendScope SmallScaleScope(const PlanInput& in, bool gate_reads) {
  BackendScope sc;
  for (Mode m : in.schedule.modes) {
    sc.op_repetitions[m] = 1;
    if (!(gate_reads && m == in.gate_mode)) sc.read_repetitions[m] = 1;
  }
  return sc;
}

// Priority of a reference row's cell: lower runs first.
std::tuple<int, int, int, int, int> Priority(const PlanInput& in, Mode mode,
                                             const Cell& c) {
  int mode_rank = 0;
  for (size_t i = 0; i < in.schedule.modes.size(); ++i) {
    if (in.schedule.modes[i] == mode) mode_rank = static_cast<int>(i) + 1;
  }
  if (mode == in.gate_mode) mode_rank = 0;
  return {mode_rank, static_cast<int>(c.op),
          c.kind == datagen::KeyKind::kHit ? 0 : 1 + static_cast<int>(c.kind),
          static_cast<int>(c.table), c.threads};
}

// Below the gate's scale: each backend's share by its role.
void ScopeByRole(const PlanInput& in, ScheduleOptions* o) {
  if (in.gate_scale) return;
  for (const auto& b : o->backends) {
    const bool gated = Listed(in.gated, b) || in.reference_full;
    o->scopes[b] = SmallScaleScope(in, gated);
  }
}

bool RunsWarm(const ScheduleOptions& o) {
  return std::find(o.modes.begin(), o.modes.end(), Mode::kWarm) !=
         o.modes.end();
}

// Warm mode holds every warm backend's files at once: admitted gated
// first, then in the order given, while they fit the host's limit.
void AdmitWarm(const PlanInput& in, Plan* plan) {
  ScheduleOptions& o = plan->schedule;
  if (!RunsWarm(o) || in.warm_limit == 0) return;
  std::vector<std::string> order;
  for (const auto& b : o.backends) {
    if (Listed(in.gated, b)) order.push_back(b);
  }
  for (const auto& b : o.backends) {
    if (!Listed(in.gated, b)) order.push_back(b);
  }
  uint64_t held = 0;
  for (const auto& b : order) {
    if (Listed(o.no_warm, b)) continue;
    const uint64_t bytes = FactsOf(in, b).disk_bytes;
    if (held + bytes <= in.warm_limit) {
      held += bytes;
      continue;
    }
    BackendScope& sc = o.scopes[b];
    sc.modes.clear();
    for (Mode m : o.modes) {
      if (m != Mode::kWarm) sc.modes.push_back(m);
    }
    plan->notes.push_back("warm for " + b + ": its files (" +
                          HumanBytes(bytes) + ") do not fit beside the " +
                          HumanBytes(held) +
                          " already held resident (this host can hold " +
                          HumanBytes(in.warm_limit) + ")");
  }
}

// A reference row's cells, by priority, that fit `budget` seconds; its
// first cell when none does, so that the row exists.
std::vector<std::pair<Mode, Cell>> FittingCells(
    const PlanInput& in, const std::string& backend,
    std::vector<std::pair<Mode, Step>> list, double budget) {
  std::stable_sort(list.begin(), list.end(), [&](const auto& x, const auto& y) {
    return Priority(in, x.first, x.second.cell) <
           Priority(in, y.first, y.second.cell);
  });
  double spent = 0;
  bool warmed = false;
  std::vector<std::pair<Mode, Cell>> chosen;
  for (const auto& [mode, step] : list) {
    double cost = PlannedStepSeconds(in, step);
    if (mode == Mode::kWarm && !warmed) {
      cost += WarmBeginSeconds(FactsOf(in, backend), CostOf(backend), in.spec);
    }
    if (spent + cost > budget) continue;
    spent += cost;
    warmed = warmed || mode == Mode::kWarm;
    chosen.push_back({mode, step.cell});
  }
  if (chosen.empty() && !list.empty()) {
    chosen.push_back({list.front().first, list.front().second.cell});
  }
  return chosen;
}

std::string ReferenceNote(const std::string& backend, size_t cells,
                          const std::vector<std::pair<Mode, Cell>>& chosen,
                          const std::vector<Mode>& modes, double budget) {
  std::map<Mode, int> kept;
  for (const auto& [m, c] : chosen) ++kept[m];
  std::string list;
  for (Mode m : modes) {
    if (!list.empty()) list += ", ";
    list += std::to_string(kept[m]) + " " + ModeName(m);
  }
  return backend + " (reference): " + std::to_string(cells - chosen.size()) +
         " of " + std::to_string(cells) + " cells; the " +
         std::to_string(chosen.size()) + " kept (" + list +
         ") fit its share of the time (" + FormatDuration(budget) +
         ", half a gated backend's); --full-reference runs them all";
}

// Below the gate's scale, a reference row runs what fits its time share;
// whether any row was narrowed.
bool FitReferenceRows(const PlanInput& in, Plan* plan) {
  if (in.gate_scale || in.reference_full) return false;
  ScheduleOptions& o = plan->schedule;
  std::map<std::string, double> total;
  std::map<std::string, std::vector<std::pair<Mode, Step>>> steps;
  for (const auto& phase : plan->phases) {
    for (const auto& step : phase.steps) {
      total[step.backend] += PlannedStepSeconds(in, step);
      steps[step.backend].push_back({phase.mode, step});
    }
  }
  double gated_sum = 0;
  int gated_n = 0;
  for (const auto& b : o.backends) {
    if (!Listed(in.gated, b)) continue;
    gated_sum += total[b];
    ++gated_n;
  }
  if (gated_n == 0) return false;
  const double budget = kReferenceTimeShare * gated_sum / gated_n;
  bool changed = false;
  for (const auto& b : o.backends) {
    if (Listed(in.gated, b)) continue;
    const auto& list = steps[b];
    auto chosen = FittingCells(in, b, list, budget);
    if (chosen.size() == list.size()) continue;
    changed = true;
    plan->notes.push_back(
        ReferenceNote(b, list.size(), chosen, o.modes, budget));
    o.scopes[b].only = std::move(chosen);
  }
  return changed;
}

// Each backend's start (its worker and sanity check): the calibration's
// when it measured this run, else the model's.
double StartOf(const PlanInput& in, const std::string& backend) {
  if (in.calibration) {
    const auto& own = in.calibration->start_by_backend;
    if (auto it = own.find(backend); it != own.end()) return it->second;
    if (in.calibration->start_s) return *in.calibration->start_s;
  }
  const bool lazy =
      std::find(in.schedule.modes.begin(), in.schedule.modes.end(),
                Mode::kColdLazy) != in.schedule.modes.end();
  return StartSeconds(in.spec, FactsOf(in, backend), CostOf(backend), in.host,
                      in.check_samples, lazy);
}

// The rows (backend x mode, in schedule order), each step's estimate and
// the whole.
void Tally(const PlanInput& in, Plan* plan) {
  const ScheduleOptions& o = plan->schedule;
  for (const auto& b : o.backends) {
    const bool gated = Listed(in.gated, b);
    auto sc = o.scopes.find(b);
    plan->shares.push_back(
        b + " (" + (gated ? "gated" : "reference") + "): " +
        DescribeScope(in, sc == o.scopes.end() ? BackendScope() : sc->second));
    plan->start_seconds[b] = StartOf(in, b);
    plan->seconds += plan->start_seconds[b];
  }
  std::map<std::pair<std::string, Mode>, size_t> row_of;
  for (const auto& phase : plan->phases) {
    std::set<std::string> warmed;
    for (const auto& step : phase.steps) {
      const auto key = std::make_pair(step.backend, phase.mode);
      if (!row_of.count(key)) {
        row_of[key] = plan->rows.size();
        PlanRow r;
        r.backend = step.backend;
        r.role = Listed(in.gated, step.backend) ? "gated" : "reference";
        r.mode = phase.mode;
        plan->rows.push_back(r);
      }
      PlanRow& row = plan->rows[row_of[key]];
      double secs = PlannedStepSeconds(in, step);
      if (in.calibration && in.calibration->same_run &&
          in.calibration->step_seconds.count(StepKey(step))) {
        ++plan->steps_measured;
      }
      if (phase.mode == Mode::kWarm && warmed.insert(step.backend).second) {
        secs += WarmBeginSeconds(FactsOf(in, step.backend),
                                 CostOf(step.backend), in.spec);
      }
      ++row.passes;
      if (step.device_reads_per_thread > 0) ++row.device_cells;
      row.seconds += secs;
      plan->step_seconds.push_back(secs);
      plan->seconds += secs;
    }
  }
}

}  // namespace

Result<Plan> MakePlan(const PlanInput& in) {
  Plan plan;
  plan.schedule = in.schedule;
  ScopeByRole(in, &plan.schedule);
  AdmitWarm(in, &plan);
  for (const auto& b : plan.schedule.backends) {
    if (Listed(plan.schedule.no_warm, b) && RunsWarm(plan.schedule)) {
      plan.notes.push_back("warm for " + b +
                           ": it reads around the page cache");
    }
  }
  FLATBENCH_ASSIGN_OR_RETURN(plan.phases, MakeSchedule(in.spec, plan.schedule));
  if (FitReferenceRows(in, &plan)) {
    FLATBENCH_ASSIGN_OR_RETURN(plan.phases,
                               MakeSchedule(in.spec, plan.schedule));
  }
  if (in.calibration) plan.calibration = Describe(*in.calibration);
  Tally(in, &plan);
  return plan;
}

std::string FormatDuration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[48];
  if (s < 60) {
    std::snprintf(buf, sizeof(buf), "%ld s", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof(buf), "%ld min %02ld s", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ld h %02ld min", s / 3600,
                  (s % 3600) / 60);
  }
  return buf;
}

std::string EstimateSource(const Plan& plan) {
  if (plan.calibration.empty()) {
    return "(the estimate is the built-in cost model, not a measurement: no "
           "results of this host to calibrate it with)";
  }
  return "(the estimate: " + plan.calibration + "; " +
         std::to_string(plan.steps_measured) + " of " +
         std::to_string(plan.step_seconds.size()) +
         " steps at their measured times, the rest from the built-in model)";
}

std::string FormatPlan(const Plan& plan) {
  std::string out;
  char buf[160];
  for (const auto& s : plan.shares) out += "  " + s + "\n";
  std::snprintf(buf, sizeof(buf), "  %-14s %-9s %-9s %7s %7s %14s\n", "backend",
                "role", "mode", "passes", "device", "estimate");
  out += buf;
  uint64_t passes = 0, device = 0;
  for (const auto& r : plan.rows) {
    std::snprintf(
        buf, sizeof(buf), "  %-14s %-9s %-9s %7s %7s %14s\n", r.backend.c_str(),
        r.role.c_str(), ModeName(r.mode), Thousands(r.passes).c_str(),
        Thousands(r.device_cells).c_str(), FormatDuration(r.seconds).c_str());
    out += buf;
    passes += r.passes;
    device += r.device_cells;
  }
  double start = 0;
  for (const auto& [b, s] : plan.start_seconds) start += s;
  std::snprintf(buf, sizeof(buf), "  %-14s %-35s %14s\n", "start",
                "workers started, sanity checks",
                FormatDuration(start).c_str());
  out += buf;
  std::snprintf(buf, sizeof(buf), "  %-14s %-9s %-9s %7s %7s %14s\n", "total",
                "", "", Thousands(passes).c_str(), Thousands(device).c_str(),
                FormatDuration(plan.seconds).c_str());
  out += buf;
  out += "  " + EstimateSource(plan) + "\n";
  for (const auto& n : plan.notes) out += "  left out: " + n + "\n";
  return out;
}

uint64_t WarmHoldLimitBytes(uint64_t mem_available) {
  return mem_available > (1ULL << 30) ? (mem_available - (1ULL << 30)) * 4 / 5
                                      : 0;
}

}  // namespace flatbench::bench
