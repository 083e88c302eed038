#include "bench/report/gates.h"

#include <algorithm>
#include <cmath>

#include "bench/report/format.h"

namespace flatbench::report {
namespace {

using Cells = std::map<CellKey, CellStats>;

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

Gate ScaleGate(const ResultSet& r, const Thresholds& t) {
  Gate g{"gate scale",
         r.scale == t.gate_scale,
         "scale " + r.scale + " (gate applies at " + t.gate_scale + ")",
         {}};
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

Gate CellsGate(const Cells& cells, const Thresholds& t,
               const std::vector<CellKey>& required) {
  Gate g{"required cells present", true, "", {}};
  size_t missing = 0;
  for (const auto& key : required) {
    auto it = cells.find(key);
    if (it == cells.end() || it->second.repetitions == 0) {
      AddDetail(&g, &missing, "missing: " + key.Name());
    }
  }
  EndDetails(&g, missing);
  g.passed = missing == 0;
  g.figure = std::to_string(required.size() - missing) + " of " +
             std::to_string(required.size()) + " " + t.gate_mode +
             " cells present";
  return g;
}

Gate RepetitionsGate(const Cells& cells, const Thresholds& t,
                     const std::vector<CellKey>& required) {
  Gate g{"repetitions", true, "", {}};
  int fewest = -1;
  size_t short_cells = 0;
  for (const auto& key : required) {
    auto it = cells.find(key);
    if (it == cells.end() || it->second.repetitions == 0) continue;
    int reps = it->second.repetitions;
    fewest = fewest < 0 ? reps : std::min(fewest, reps);
    if (reps < t.min_repetitions) {
      AddDetail(&g, &short_cells,
                key.Name() + ": " + std::to_string(reps) + " repetitions");
    }
  }
  EndDetails(&g, short_cells);
  g.passed = short_cells == 0 && fewest >= 0;
  g.figure = "fewest repetitions in a cell: " +
             (fewest < 0 ? std::string("none") : std::to_string(fewest)) +
             " (minimum " + std::to_string(t.min_repetitions) + ")";
  return g;
}

// The gate-mode passes of the backends the verdict compares.
std::vector<const Pass*> GatePasses(const ResultSet& r, const Thresholds& t) {
  std::vector<const Pass*> out;
  for (const auto& p : r.passes) {
    if (!p.error && p.cell.mode == t.gate_mode &&
        InVerdict(t, p.cell.backend)) {
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
    bool ok = p->eviction_verified == 1 && resident <= t.max_resident_fraction;
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

}  // namespace

bool InVerdict(const Thresholds& t, const std::string& backend) {
  for (const auto& b : t.Backends()) {
    if (b == backend) return true;
  }
  return false;
}

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

std::vector<Gate> ComputeGates(const ResultSet& results, const Thresholds& t,
                               const std::map<CellKey, CellStats>& cells) {
  std::vector<CellKey> required = RequiredCells(t);
  std::vector<const Pass*> passes = GatePasses(results, t);
  return {
      ScaleGate(results, t),
      ContextGate(results, "release build", "flatbench.build_type", "release",
                  t.require_release_build),
      ContextGate(results, "asserts off", "flatbench.asserts", "off",
                  t.require_asserts_off),
      CellsGate(cells, t, required),
      RepetitionsGate(cells, t, required),
      EvictionGate(passes, t),
      ConcurrencyGate(passes, t),
      SanityGate(results, t),
      FoundGate(passes, t),
      ErrorGate(results, t),
  };
}

}  // namespace flatbench::report
