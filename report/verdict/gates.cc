#include "report/verdict/gates.h"

#include <algorithm>
#include <cmath>

#include "dataset/estimate.h"
#include "dataset/names.h"
#include "dataset/spec.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;
using Cells = std::map<CellKey, CellStats>;

// The scale is shown, not only named: the dataset's counts must be the
// gate scale's, and each gated backend's on-disk size must be within the
// estimate the dataset makes for that scale: at most the estimate (which holds
// a 10% margin) and at least two thirds of it.
Gate ScaleGate(const ResultSet& res, const Thresholds& t) {
  Gate g{"gate scale", true, "", {}};
  size_t bad = 0;
  const std::string scale = res.scale();
  auto want = dataset::MakeSpec(t.gate_scale, 0, 0, dataset::kDefaultSeed);
  auto accounts = res.Integer(r::kDatasetAccounts.name);
  auto slots = res.Integer(r::kDatasetSlotsPerAccount.name);
  g.figure = "scale " + scale + ", " +
             (accounts ? std::to_string(*accounts) : "?") + " accounts x " +
             (slots ? std::to_string(*slots) : "?") +
             " slots (gate applies at " + t.gate_scale + ")";
  if (scale != t.gate_scale) {
    AddDetail(&g, &bad, "named scale " + scale + ", not " + t.gate_scale);
  }
  if (!want.ok()) {
    AddDetail(&g, &bad, "gate scale " + t.gate_scale + " has no fixed counts");
    EndDetails(&g, bad);
    g.passed = false;
    return g;
  }
  if (!accounts || !slots ||
      static_cast<uint64_t>(*accounts) != want.value().accounts ||
      static_cast<uint64_t>(*slots) != want.value().slots_per_account) {
    AddDetail(&g, &bad,
              "counts are not " + t.gate_scale + "'s " +
                  std::to_string(want.value().accounts) + " accounts x " +
                  std::to_string(want.value().slots_per_account) + " slots");
  }
  for (const auto& b : t.Backends()) {
    auto disk = res.Integer(r::BackendKey(b, r::kDiskBytes));
    // A read path of a backend ("arena+pread") reads that backend's files.
    const std::string built = dataset::StoreOf(b);
    double est =
        static_cast<double>(dataset::EstimateDiskBytes(want.value(), built));
    if (!disk || *disk > est || *disk < est * 2 / 3) {
      AddDetail(&g, &bad,
                b + " on disk " +
                    (disk ? Bytes(static_cast<double>(*disk)) : "unknown") +
                    ", expected " + Bytes(est * 2 / 3) + "–" + Bytes(est) +
                    " at " + t.gate_scale + " scale");
    }
  }
  EndDetails(&g, bad);
  g.passed = bad == 0;
  return g;
}

Gate ContextGate(const std::string& name, const std::string& key,
                 const std::string& have, const std::string& want,
                 bool required) {
  Gate g;
  g.name = name;
  g.figure = key + " = " + (have.empty() ? "(not recorded)" : have) +
             " (required: " + want + ")";
  g.passed = have == want || !required;
  if (!required) g.figure += "; not required by these thresholds";
  return g;
}

// RESEARCH.md: the gate host needs as many hardware threads as the largest
// thread count, or CPU-bound cells time-share cores.
Gate HostGate(const ResultSet& res, const Thresholds& t) {
  auto hw = res.Integer(r::kHardwareThreads.name);
  int most = *std::max_element(t.threads.begin(), t.threads.end());
  Gate g{"host hardware threads", hw && *hw >= most, "", {}};
  g.figure = std::string(r::kHardwareThreads.name) + " = " +
             (hw ? std::to_string(*hw) : "(not recorded)") +
             " (required: at least " + std::to_string(most) +
             ", the largest thread count)";
  return g;
}

Gate CellsGate(const Cells& cells, const Thresholds& t,
               const std::vector<CellKey>& required) {
  Gate g{"required cells present", true, "", {}};
  size_t missing = 0;
  for (const auto& key : required) {
    if (MeasuredCell(cells, key) == nullptr) {
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
    const CellStats* s = MeasuredCell(cells, key);
    if (s == nullptr) continue;
    int reps = s->repetitions;
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

Gate EvictionGate(const std::vector<const Pass*>& passes, const Thresholds& t) {
  Gate g{"eviction verified", true, "", {}};
  size_t bad = 0, judged = 0;
  double worst = 0;
  for (const Pass* p : passes) {
    if (p->cell.kind == r::kKindDevice) continue;  // O_DIRECT: no cache.
    ++judged;
    const bool verified = p->Get(r::kEvictionVerified) == 1;
    // Opening a backend after eviction legitimately faults in its metadata,
    // so the bound applies to the figure taken right after eviction.
    double resident = p->Get(r::kResidentFractionAfterEviction);
    bool ok = verified;
    if (r::IsColdMode(t.gate_mode)) {
      worst = std::max(worst, resident);
      ok = ok && resident <= t.max_resident_fraction;
    }
    if (!ok) {
      AddDetail(&g, &bad,
                p->Name() + ": resident " + Percent(resident) +
                    (verified ? "" : ", not verified"));
    }
  }
  EndDetails(&g, bad);
  g.passed = bad == 0 && judged > 0;
  g.figure = std::to_string(judged - bad) + " of " + std::to_string(judged) +
             " " + t.gate_mode + " passes verified; most resident after " +
             "eviction " + Percent(worst) + " (bound " +
             Percent(t.max_resident_fraction) + ")";
  return g;
}

Gate SanityGate(const ResultSet& res, const Thresholds& t) {
  Gate g{"sanity checks passed", true, "", {}};
  std::string figure;
  bool all = true;
  for (const auto& backend : t.Backends()) {
    auto passed = res.Bool(r::BackendKey(backend, r::kSanityPassed));
    std::string keys = res.Context(backend, r::kSanityKeys);
    std::string why = res.Context(backend, r::kSanityError);
    all = all && passed.value_or(false);
    figure += (figure.empty() ? "" : "; ") + backend + ": " +
              (!passed   ? std::string("not recorded")
               : *passed ? "passed (" + keys + " keys)"
                         : "failed: " + why);
  }
  g.passed = all || !t.require_sanity_passed;
  g.figure = figure;
  if (!t.require_sanity_passed) g.figure += "; not required";
  return g;
}

Gate ErrorGate(const ResultSet& res, const Thresholds& t) {
  Gate g{"passes completed", true, "", {}};
  size_t bad = 0;
  for (const auto& p : res.passes) {
    if (p.error && InVerdict(t, p.cell.backend)) {
      AddDetail(&g, &bad, p.Name() + ": " + p.error_message);
    }
  }
  EndDetails(&g, bad);
  g.passed = bad == 0;
  g.figure = std::to_string(bad) + " passes reported an error";
  return g;
}

}  // namespace

void AddDetail(Gate* gate, size_t* count, const std::string& what) {
  if (++*count <= kMaxDetails) gate->details.push_back(what);
}

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

std::vector<const Pass*> GatePasses(const ResultSet& res, const Thresholds& t) {
  std::vector<const Pass*> out;
  for (const auto& p : res.passes) {
    // Scan and startup cells are informational: no gate reads them.
    const bool gated_kind =
        r::IsReadKind(p.cell.kind) || p.cell.kind == r::kKindDevice;
    if (!p.error && gated_kind && p.cell.mode == t.gate_mode &&
        InVerdict(t, p.cell.backend)) {
      out.push_back(&p);
    }
  }
  return out;
}

std::vector<Gate> ComputeGates(const ResultSet& res, const Thresholds& t,
                               const std::map<CellKey, CellStats>& cells) {
  std::vector<CellKey> required = RequiredCells(t);
  std::vector<const Pass*> passes = GatePasses(res, t);
  auto asserts = res.Bool(r::kAssertsOn.name);
  return {
      ScaleGate(res, t),
      ContextGate("release build", std::string(r::kBuildType.name),
                  res.Context(r::kBuildType), "release",
                  t.require_release_build),
      ContextGate("asserts off", std::string(r::kAssertsOn.name),
                  asserts ? (*asserts ? "true" : "false") : "", "false",
                  t.require_asserts_off),
      HostGate(res, t),
      CellsGate(cells, t, required),
      RepetitionsGate(cells, t, required),
      EvictionGate(passes, t),
      ConcurrencyGate(res, t, passes),
      UniformityGate(t, cells),
      DriftGate(res, t, cells),
      SanityGate(res, t),
      ErrorGate(res, t),
  };
}

}  // namespace flatbench::report
