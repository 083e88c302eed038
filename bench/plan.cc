#include "bench/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>
#include <utility>

#include "common/files.h"
#include "dataset/names.h"

namespace flatbench::bench {
namespace {

// Measured at smoke scale on a 2-core VM with a virtio disk, medians over
// a gonogo run's passes (RESEARCH.md, section 6). A server backend's open
// and probe include starting its server.
const std::map<std::string, BackendCost>& CostTable() {
  static const auto* table = new std::map<std::string, BackendCost>{
      {"arena", {0.05, 2e-4, 1e-5, 4e-6, 0.1, 2e-5}},
      {"rocksdb", {0.1, 2.5e-4, 1e-5, 8e-6, 0.15, 2e-5}},
      {"lmdb", {0.05, 2e-4, 2e-4, 4e-6, 0.1, 2e-5}},
      {"sqlite", {0.05, 3e-4, 3e-4, 1e-5, 0.1, 2e-5}},
      {"postgres", {1.5, 4e-4, 4e-4, 6e-5, 1.6, 2e-5}},
      {"fs", {0.01, 4e-4, 2e-4, 2e-5, 0.1, 2e-5}},
  };
  return *table;
}

std::string Count(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

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

}  // namespace

BackendCost CostOf(const std::string& backend) {
  const std::string base = dataset::StoreOf(backend);
  auto it = CostTable().find(base);
  if (it != CostTable().end()) return it->second;
  BackendCost slowest;
  for (const auto& [name, c] : CostTable()) {
    slowest.open_s = std::max(slowest.open_s, c.open_s);
    slowest.cold_read_s = std::max(slowest.cold_read_s, c.cold_read_s);
    slowest.cold_miss_s = std::max(slowest.cold_miss_s, c.cold_miss_s);
    slowest.warm_read_s = std::max(slowest.warm_read_s, c.warm_read_s);
    slowest.probe_s = std::max(slowest.probe_s, c.probe_s);
  }
  return slowest;
}

double AtDevice(double figure, const HostCost& host) {
  if (figure < kCostDeviceLatencyS) return figure;
  return figure - kCostDeviceLatencyS + host.device_latency_s;
}

HostCost HostCostFromProfile(const DeviceProfile& profile, HostCost base) {
  HostCost h = base;
  h.cores = std::max(1, profile.cpus);
  h.device_latency_s =
      profile.LatencySeconds(1, 4096, DeviceProfile::Bound::kMid);
  double best = 0;
  for (const DeviceProfileCell& c : profile.cells) {
    best = std::max(best, profile.ReadsPerS(c.depth, 4096));
  }
  h.device_parallelism =
      std::max(1, static_cast<int>(std::lround(best * h.device_latency_s)));
  return h;
}

double EstimateStep(const Step& step, const BackendFacts& facts,
                    const BackendCost& cost, const HostCost& host,
                    bool drop_caches) {
  const bool cold = IsCold(step.mode);
  const double files = static_cast<double>(facts.files);
  const double evict =
      drop_caches ? host.drop_caches_s : files * cost.per_file_s;
  // The request and the residency checks (mincore over every file).
  double s = 0.02 + 2 * files * cost.per_file_s;
  if (step.cell.op == Op::kStartup) {
    const double probes = static_cast<double>(step.reads_per_thread);
    return s + probes * ((cold ? evict : 0.0) + cost.probe_s +
                         files * cost.per_file_s);
  }
  const double threads = static_cast<double>(step.cell.threads);
  const bool batch = step.cell.op == Op::kBatch;
  // A batch pass reads batch_size keys per call, each call's reads in
  // flight together.
  const double keys_per_op = batch ? static_cast<double>(step.batch_size) : 1;
  const double ops =
      threads * static_cast<double>(step.reads_per_thread) * keys_per_op;
  double per_op = 0, at_once = 1;
  if (cold) {
    s += evict + cost.open_s;
    at_once = std::min<double>(threads * keys_per_op, host.device_parallelism);
    if (step.device_reads_per_thread > 0) {
      const double depth = static_cast<double>(step.DeviceThreads());
      s += depth * static_cast<double>(step.device_reads_per_thread) *
           AtDevice(cost.cold_read_s, host) /
           std::min<double>(depth, host.device_parallelism);
    }
    per_op =
        AtDevice(step.cell.kind == datagen::KeyKind::kHit ? cost.cold_read_s
                                                          : cost.cold_miss_s,
                 host);
    if (step.cell.op == Op::kScan)
      per_op = 2 * AtDevice(cost.cold_read_s, host);
  } else {
    at_once = std::min<double>(threads, host.cores);
    per_op = cost.warm_read_s;
    if (step.cell.op == Op::kScan) per_op = 10 * cost.warm_read_s;
  }
  return s + ops * per_op / at_once;
}

double WarmBeginSeconds(const BackendFacts& facts, const BackendCost& cost,
                        const dataset::Spec& spec) {
  // Reading the files in (about 200 MB/s), holding them, opening, and the
  // warm-up reads: per table at most three per page (worker_state.h).
  const double pages = static_cast<double>(facts.disk_bytes) / 4096.0;
  const double keys = static_cast<double>(spec.accounts + spec.storage_slots());
  const double warmup = std::min({3 * pages, keys, 400'000.0});
  return static_cast<double>(facts.disk_bytes) / 200e6 +
         static_cast<double>(facts.files) * cost.per_file_s * 4 + cost.open_s +
         warmup * cost.warm_read_s;
}

double PlannedStepSeconds(const PlanInput& in, const Step& step) {
  auto f = in.facts.find(step.backend);
  const BackendFacts facts = f == in.facts.end() ? BackendFacts() : f->second;
  const BackendCost cost = CostOf(step.backend);
  double secs = EstimateStep(step, facts, cost, in.host, in.drop_caches);
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

}  // namespace

Result<Plan> MakePlan(const PlanInput& in) {
  Plan plan;
  plan.schedule = in.schedule;
  ScheduleOptions& o = plan.schedule;
  if (!in.gate_scale) {
    for (const auto& b : o.backends) {
      const bool gated = Listed(in.gated, b) || in.reference_full;
      o.scopes[b] = SmallScaleScope(in, gated);
    }
  }
  // Warm admission, gated backends first, then in the order given.
  const bool warm =
      std::find(o.modes.begin(), o.modes.end(), Mode::kWarm) != o.modes.end();
  if (warm && in.warm_limit > 0) {
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
      auto f = in.facts.find(b);
      const uint64_t bytes = f == in.facts.end() ? 0 : f->second.disk_bytes;
      if (held + bytes <= in.warm_limit) {
        held += bytes;
        continue;
      }
      BackendScope& sc = o.scopes[b];
      sc.modes.clear();
      for (Mode m : o.modes) {
        if (m != Mode::kWarm) sc.modes.push_back(m);
      }
      plan.notes.push_back("warm for " + b + ": its files (" +
                           HumanBytes(bytes) + ") do not fit beside the " +
                           HumanBytes(held) +
                           " already held resident (this host can hold " +
                           HumanBytes(in.warm_limit) + ")");
    }
  }
  for (const auto& b : o.backends) {
    if (Listed(o.no_warm, b) && warm) {
      plan.notes.push_back("warm for " + b +
                           ": it reads around the page cache");
    }
  }
  FLATBENCH_ASSIGN_OR_RETURN(plan.phases, MakeSchedule(in.spec, o));

  // Below the gate's scale, a reference row runs what fits its time share.
  if (!in.gate_scale && !in.reference_full) {
    std::map<std::string, double> total;
    std::map<std::string, std::vector<std::pair<Mode, Step>>> steps;
    for (const auto& phase : plan.phases) {
      for (const auto& step : phase.steps) {
        total[step.backend] += PlannedStepSeconds(in, step);
        steps[step.backend].push_back({phase.mode, step});
      }
    }
    double gated_sum = 0;
    int gated_n = 0;
    for (const auto& b : o.backends) {
      if (Listed(in.gated, b)) {
        gated_sum += total[b];
        ++gated_n;
      }
    }
    const double budget =
        gated_n > 0 ? kReferenceTimeShare * gated_sum / gated_n : 0;
    bool changed = false;
    for (const auto& b : o.backends) {
      if (Listed(in.gated, b) || gated_n == 0) continue;
      auto& list = steps[b];
      std::stable_sort(list.begin(), list.end(),
                       [&](const auto& x, const auto& y) {
                         return Priority(in, x.first, x.second.cell) <
                                Priority(in, y.first, y.second.cell);
                       });
      auto f = in.facts.find(b);
      const BackendFacts facts =
          f == in.facts.end() ? BackendFacts() : f->second;
      double spent = 0;
      bool warmed = false;
      std::vector<std::pair<Mode, Cell>> chosen;
      for (const auto& [mode, step] : list) {
        double cost = PlannedStepSeconds(in, step);
        if (mode == Mode::kWarm && !warmed) {
          cost += WarmBeginSeconds(facts, CostOf(b), in.spec);
        }
        if (spent + cost > budget) continue;
        spent += cost;
        warmed = warmed || mode == Mode::kWarm;
        chosen.push_back({mode, step.cell});
      }
      if (chosen.size() == list.size()) continue;
      changed = true;
      if (chosen.empty()) {
        // Nothing fits: its first cell, so that the row exists.
        chosen.push_back({list.front().first, list.front().second.cell});
      }
      std::map<Mode, int> kept;
      for (const auto& [m, c] : chosen) ++kept[m];
      std::string modes;
      for (Mode m : o.modes) {
        if (!modes.empty()) modes += ", ";
        modes += std::to_string(kept[m]) + " " + ModeName(m);
      }
      plan.notes.push_back(
          b + " (reference): " + std::to_string(list.size() - chosen.size()) +
          " of " + std::to_string(list.size()) + " cells; the " +
          std::to_string(chosen.size()) + " kept (" + modes +
          ") fit its share of the time (" + FormatDuration(budget) +
          ", half a gated backend's); --full-reference runs them all");
      o.scopes[b].only = std::move(chosen);
    }
    if (changed) {
      FLATBENCH_ASSIGN_OR_RETURN(plan.phases, MakeSchedule(in.spec, o));
    }
  }

  for (const auto& b : o.backends) {
    const bool gated = Listed(in.gated, b);
    auto sc = o.scopes.find(b);
    plan.shares.push_back(
        b + " (" + (gated ? "gated" : "reference") + "): " +
        DescribeScope(in, sc == o.scopes.end() ? BackendScope() : sc->second));
  }
  std::map<std::pair<std::string, Mode>, size_t> row_of;
  for (const auto& phase : plan.phases) {
    std::set<std::string> warmed;
    for (const auto& step : phase.steps) {
      const auto key = std::make_pair(step.backend, phase.mode);
      if (!row_of.count(key)) {
        row_of[key] = plan.rows.size();
        PlanRow r;
        r.backend = step.backend;
        r.role = Listed(in.gated, step.backend) ? "gated" : "reference";
        r.mode = phase.mode;
        plan.rows.push_back(r);
      }
      PlanRow& row = plan.rows[row_of[key]];
      double secs = PlannedStepSeconds(in, step);
      if (phase.mode == Mode::kWarm && warmed.insert(step.backend).second) {
        auto f = in.facts.find(step.backend);
        secs +=
            WarmBeginSeconds(f == in.facts.end() ? BackendFacts() : f->second,
                             CostOf(step.backend), in.spec);
      }
      ++row.passes;
      if (step.device_reads_per_thread > 0) ++row.device_cells;
      row.seconds += secs;
      plan.step_seconds.push_back(secs);
      plan.seconds += secs;
    }
  }
  return plan;
}

Eta::Eta(std::vector<double> estimates) : each_(std::move(estimates)) {
  for (double e : each_) total_ += e;
  left_ = total_;
}

void Eta::Done(size_t index, double seconds) {
  if (index >= each_.size()) return;
  done_ += each_[index];
  left_ -= each_[index];
  measured_ += std::max(0.0, seconds);
}

double Eta::Scale() const {
  // The model counts as this many estimated seconds already measured at
  // scale 1: a twentieth of the run, at most a minute.
  const double prior = std::min(60.0, 0.05 * total_);
  if (done_ + prior <= 0) return 1.0;
  return (measured_ + prior) / (done_ + prior);
}

double Eta::LeftSeconds() const { return std::max(0.0, left_) * Scale(); }

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

std::string FormatPlan(const Plan& plan) {
  std::string out;
  char buf[160];
  for (const auto& s : plan.shares) out += "  " + s + "\n";
  std::snprintf(buf, sizeof(buf), "  %-14s %-9s %-9s %7s %7s %14s\n", "backend",
                "role", "mode", "passes", "device", "estimate");
  out += buf;
  uint64_t passes = 0, device = 0;
  for (const auto& r : plan.rows) {
    std::snprintf(buf, sizeof(buf), "  %-14s %-9s %-9s %7s %7s %14s\n",
                  r.backend.c_str(), r.role.c_str(), ModeName(r.mode),
                  Count(r.passes).c_str(), Count(r.device_cells).c_str(),
                  FormatDuration(r.seconds).c_str());
    out += buf;
    passes += r.passes;
    device += r.device_cells;
  }
  std::snprintf(buf, sizeof(buf), "  %-14s %-9s %-9s %7s %7s %14s\n", "total",
                "", "", Count(passes).c_str(), Count(device).c_str(),
                FormatDuration(plan.seconds).c_str());
  out += buf;
  out += "  (the estimate is a per-pass cost model, not a measurement)\n";
  for (const auto& n : plan.notes) out += "  left out: " + n + "\n";
  return out;
}

uint64_t WarmHoldLimitBytes(uint64_t mem_available) {
  return mem_available > (1ULL << 30) ? (mem_available - (1ULL << 30)) * 4 / 5
                                      : 0;
}

}  // namespace flatbench::bench
