#include "bench/schedule.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <tuple>

#include "bench/key_plan.h"
#include "common/results_schema.h"

namespace flatbench::bench {

using datagen::KeyKind;

bool Listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The contract's constants are string literals, so .data() ends in NUL.
const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kWarm:
      return results::kModeWarm.data();
    case Mode::kCold:
      return results::kModeCold.data();
    case Mode::kColdLazy:
      return results::kModeColdLazy.data();
  }
  return "?";
}

bool ParseMode(std::string_view name, Mode* out) {
  for (Mode m : {Mode::kWarm, Mode::kCold, Mode::kColdLazy}) {
    if (name == ModeName(m)) {
      *out = m;
      return true;
    }
  }
  return false;
}

results::CellName CellNameOf(const std::string& backend, const Cell& cell,
                             Mode mode, int rep) {
  return {backend,        TableName(cell.table), CellKindName(cell),
          ModeName(mode), cell.threads,          rep};
}

std::string PassName(const results::CellName& name) {
  std::string out = results::FormatCellName(name);
  assert(results::ParseCellName(out).has_value());
  return out;
}

std::string CellKindName(const Cell& cell) {
  switch (cell.op) {
    case Op::kScan:
      return std::string(results::kKindScan);
    case Op::kStartup:
      return std::string(results::kKindStartup);
    case Op::kBatch:
      return std::string(results::kKindBatch);
    case Op::kRead:
      break;
  }
  return datagen::KeyKindName(cell.kind);
}

uint64_t CellDrawSeed(uint64_t base_seed, const Cell& cell) {
  // Salts ("scan", "startup", "batch") keep the operation kinds off the hit
  // reads' permutation, so no op kind's keys follow another's.
  switch (cell.op) {
    case Op::kScan:
      return DrawSeed(base_seed ^ 0x7363616eULL, cell.table, KeyKind::kHit);
    case Op::kStartup:
      return DrawSeed(base_seed ^ 0x7374617274757070ULL, cell.table,
                      KeyKind::kHit);
    case Op::kBatch:
      return DrawSeed(base_seed ^ 0x6261746368ULL, cell.table, KeyKind::kHit);
    case Op::kRead:
      break;
  }
  return DrawSeed(base_seed, cell.table, cell.kind);
}

bool BackendScope::Runs(Mode mode, const Cell& cell, int rep) const {
  if (!modes.empty() &&
      std::find(modes.begin(), modes.end(), mode) == modes.end()) {
    return false;
  }
  // A batch is a read measured beside the point reads (its own device
  // cell, its efficiency): it gets their repetitions.
  const bool reads = cell.op == Op::kRead || cell.op == Op::kBatch;
  const auto& reps = reads ? read_repetitions : op_repetitions;
  auto r = reps.find(mode);
  if (r != reps.end() && rep >= r->second) return false;
  if (only.empty()) return true;
  for (const auto& [m, c] : only) {
    if (m == mode && rep == 0 && c.table == cell.table && c.kind == cell.kind &&
        c.threads == cell.threads && c.op == cell.op) {
      return true;
    }
  }
  return false;
}

Status ParseKinds(const std::vector<std::string>& names, ScheduleOptions* o) {
  o->kinds.clear();
  o->scan = o->startup = o->batch = false;
  std::vector<std::string> seen;
  for (const auto& name : names) {
    if (Listed(seen, name)) {
      return Status::Usage("--kinds: '" + name + "' twice");
    }
    seen.push_back(name);
    KeyKind kind;
    if (name == results::kKindScan) {
      o->scan = true;
    } else if (name == results::kKindStartup) {
      o->startup = true;
    } else if (name == results::kKindBatch) {
      o->batch = true;
    } else if (datagen::ParseKeyKind(name, &kind)) {
      o->kinds.push_back(kind);
    } else {
      std::string known;
      for (std::string_view k : results::kKinds) {
        if (k == results::kKindDevice) continue;  // Device cells follow.
        known += (known.empty() ? "" : ", ") + std::string(k);
      }
      return Status::Usage("--kinds: '" + name + "' is not one of " + known);
    }
  }
  if (seen.empty()) return Status::Usage("--kinds: empty list");
  return Status::Ok();
}

std::vector<Cell> EnumerateCells(const dataset::Spec& spec,
                                 const std::vector<Table>& tables,
                                 const std::vector<KeyKind>& kinds,
                                 const std::vector<int>& threads) {
  std::vector<Cell> cells;
  for (Table table : tables) {
    if (table == Table::kStorage && spec.slots_per_account == 0) continue;
    for (KeyKind kind : kinds) {
      if (!results::CellExists(TableName(table), datagen::KeyKindName(kind))) {
        continue;
      }
      for (int t : threads) cells.push_back({table, kind, t});
    }
  }
  return cells;
}

Result<std::vector<Phase>> MakeSchedule(const dataset::Spec& spec,
                                        const ScheduleOptions& o) {
  std::vector<Cell> cells = EnumerateCells(spec, o.tables, o.kinds, o.threads);
  if (o.scan) {
    for (const Cell& c :
         EnumerateCells(spec, o.tables, {KeyKind::kHit}, o.threads)) {
      cells.push_back({c.table, KeyKind::kHit, c.threads, Op::kScan});
    }
  }
  if (o.startup)
    cells.push_back({Table::kAccount, KeyKind::kHit, 1, Op::kStartup});
  if (o.batch) {
    for (const Cell& c :
         EnumerateCells(spec, o.tables, {KeyKind::kHit}, o.batch_threads)) {
      cells.push_back({c.table, KeyKind::kHit, c.threads, Op::kBatch});
    }
  }
  if (o.scan && o.scan_length == 0) {
    return Status::Usage("--scan-length: must be at least 1");
  }
  if (o.batch && o.batch_size == 0) {
    return Status::Usage("--batch-size: must be at least 1");
  }
  // Whether `backend` runs a cold hit read cell of `table` at `threads` in
  // (mode, rep) with its device cell: a batch cell at that depth then has
  // its device rate already.
  auto device_measured = [&](const std::string& backend, Mode mode, Table table,
                             int threads, int rep) {
    if (o.device_reads == 0) return false;
    const Cell read{table, KeyKind::kHit, threads, Op::kRead};
    bool listed = false;
    for (const Cell& c : cells) {
      listed = listed || (c.op == Op::kRead && c.table == table &&
                          c.kind == KeyKind::kHit && c.threads == threads);
    }
    auto scope = o.scopes.find(backend);
    return listed &&
           (scope == o.scopes.end() || scope->second.Runs(mode, read, rep));
  };
  // Key space of each (table, kind, op), and where its next pass starts.
  using SpaceKey = std::tuple<Table, KeyKind, Op>;
  std::map<SpaceKey, uint64_t> space, next;
  for (const Cell& c : cells) {
    SpaceKey key{c.table, c.kind, c.op};
    if (space.count(key)) continue;
    datagen::Sampler sampler(spec, c.table, c.kind,
                             CellDrawSeed(o.draw_seed, c));
    space[key] = sampler.space();
    next[key] = 0;
  }
  const uint64_t scans = o.scans_per_pass > 0
                             ? o.scans_per_pass
                             : std::max<uint64_t>(1, o.reads_per_pass / 10);
  std::vector<Phase> phases;
  for (Mode mode : o.modes) {
    Phase phase{mode, {}};
    std::vector<std::string> backends;
    for (const auto& b : o.backends) {
      if (mode != Mode::kWarm || !Listed(o.no_warm, b)) backends.push_back(b);
    }
    if (backends.empty()) continue;
    for (int rep = 0; rep < o.repetitions; ++rep) {
      for (size_t ci = 0; ci < cells.size(); ++ci) {
        const Cell& c = cells[ci];
        const SpaceKey key{c.table, c.kind, c.op};
        const uint64_t n = static_cast<uint64_t>(c.threads);
        // Keys per operation: a batch reads batch_size keys per call.
        const uint64_t per_op = c.op == Op::kBatch ? o.batch_size : 1;
        const uint64_t ops = c.op == Op::kRead    ? o.reads_per_pass
                             : c.op == Op::kScan  ? scans
                             : c.op == Op::kBatch ? o.reads_per_pass / per_op
                                                  : o.startup_probes;
        uint64_t rpt = std::max<uint64_t>(1, ops / n);
        rpt = std::min(rpt, space[key] / (n * per_op));
        if (rpt == 0) {
          if (c.op == Op::kBatch) {
            return Status::Usage(
                "--batch-size " + std::to_string(o.batch_size) + " at " +
                std::to_string(c.threads) + " threads: more keys than the " +
                TableName(c.table) + " table's " + std::to_string(space[key]) +
                " hit keys");
          }
          return Status::Usage("--threads " + std::to_string(c.threads) +
                               ": more threads than " + TableName(c.table) +
                               " " + datagen::KeyKindName(c.kind) + " keys");
        }
        uint64_t& first = next[key];
        uint64_t device = 0;
        // The device cell is the point-read reference: hit reads only.
        if (IsCold(mode) && c.op == Op::kRead && c.kind == KeyKind::kHit &&
            o.device_reads > 0) {
          device = std::max<uint64_t>(1, o.device_reads / n);
        }
        std::vector<std::string> runs;
        for (const auto& b : backends) {
          auto scope = o.scopes.find(b);
          if (scope == o.scopes.end() || scope->second.Runs(mode, c, rep)) {
            runs.push_back(b);
          }
        }
        const size_t shift =
            runs.empty() ? 0 : (static_cast<size_t>(rep) + ci) % runs.size();
        for (size_t k = 0; k < runs.size(); ++k) {
          Step s;
          s.backend = runs[(k + shift) % runs.size()];
          s.mode = mode;
          s.cell = c;
          s.repetition = rep;
          s.first_index = first;
          s.reads_per_thread = rpt;
          s.device_reads_per_thread = device;
          s.scan_length = c.op == Op::kScan ? o.scan_length : 0;
          if (c.op == Op::kBatch) {
            s.batch_size = o.batch_size;
            const int depth = static_cast<int>(o.batch_size);
            if (IsCold(mode) && o.device_reads > 0 &&
                !device_measured(s.backend, mode, c.table, depth, rep)) {
              s.device_reads_per_thread =
                  std::max<uint64_t>(1, o.device_reads / o.batch_size);
            }
          }
          phase.steps.push_back(std::move(s));
        }
        first = (first + n * rpt * per_op) % space[key];
      }
    }
    phases.push_back(std::move(phase));
  }
  return phases;
}

std::string DescribeSchedule() {
  return "interleaved: for each mode, for each repetition, for each cell "
         "(table x kind x threads), every backend runs the cell once in an "
         "order rotated by (repetition + cell index), a Latin square; each "
         "backend runs in its own process; in cold modes each hit pass is "
         "preceded, in the same process, by 4 KiB O_DIRECT random reads of "
         "the files holding that backend's table (the device cell); scan, "
         "startup and batch cells, when measured, follow the read cells in "
         "the same rotation; a cold batch pass of B keys per call is "
         "preceded by a device cell at B threads unless the backend's hit "
         "pass at B threads measured one in that repetition";
}

nlohmann::json StepToJson(const Step& s) {
  return {{"backend", s.backend},
          {"mode", ModeName(s.mode)},
          {"table", TableName(s.cell.table)},
          {"kind", datagen::KeyKindName(s.cell.kind)},
          {"op", CellKindName(s.cell)},
          {"scan_length", s.scan_length},
          {"batch_size", s.batch_size},
          {"threads", s.cell.threads},
          {"repetition", s.repetition},
          {"first_index", s.first_index},
          {"reads_per_thread", s.reads_per_thread},
          {"device_reads_per_thread", s.device_reads_per_thread}};
}

Result<Step> StepFromJson(const nlohmann::json& j) {
  Step s;
  try {
    s.backend = j.at("backend").get<std::string>();
    if (!ParseMode(j.at("mode").get<std::string>(), &s.mode) ||
        !ParseTable(j.at("table").get<std::string>(), &s.cell.table) ||
        !datagen::ParseKeyKind(j.at("kind").get<std::string>(), &s.cell.kind)) {
      return Status::Corruption("step: bad mode, table or kind: " + j.dump());
    }
    s.cell.threads = j.at("threads").get<int>();
    s.repetition = j.at("repetition").get<int>();
    s.first_index = j.at("first_index").get<uint64_t>();
    s.reads_per_thread = j.at("reads_per_thread").get<uint64_t>();
    s.device_reads_per_thread = j.at("device_reads_per_thread").get<uint64_t>();
    const std::string op = j.at("op").get<std::string>();
    s.cell.op = op == results::kKindScan      ? Op::kScan
                : op == results::kKindStartup ? Op::kStartup
                : op == results::kKindBatch   ? Op::kBatch
                                              : Op::kRead;
    if (s.cell.op == Op::kRead && op != datagen::KeyKindName(s.cell.kind)) {
      return Status::Corruption("step: bad op: " + j.dump());
    }
    s.scan_length = j.at("scan_length").get<uint32_t>();
    // Journals written before batch cells existed have no batch_size.
    s.batch_size = j.value("batch_size", uint32_t{0});
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("step: ") + e.what());
  }
  if (s.cell.threads < 1 || s.reads_per_thread == 0 ||
      (s.cell.op == Op::kScan && s.scan_length == 0) ||
      (s.cell.op == Op::kBatch && s.batch_size == 0)) {
    return Status::Corruption("step: no threads or no reads: " + j.dump());
  }
  return s;
}

nlohmann::json ScheduleToJson(const std::vector<Phase>& phases) {
  nlohmann::json out = nlohmann::json::array();
  for (const Phase& p : phases) {
    nlohmann::json steps = nlohmann::json::array();
    for (const Step& s : p.steps) steps.push_back(StepToJson(s));
    out.push_back({{"mode", ModeName(p.mode)}, {"steps", std::move(steps)}});
  }
  return out;
}

Result<std::vector<Phase>> ScheduleFromJson(const nlohmann::json& j) {
  if (!j.is_array()) return Status::Corruption("schedule: not an array");
  std::vector<Phase> phases;
  for (const auto& p : j) {
    Phase phase{Mode::kCold, {}};
    if (!p.is_object() || !p.contains("mode") || !p["mode"].is_string() ||
        !ParseMode(p["mode"].get<std::string>(), &phase.mode) ||
        !p.contains("steps") || !p["steps"].is_array()) {
      return Status::Corruption("schedule: bad phase: " +
                                p.dump().substr(0, 80));
    }
    for (const auto& s : p["steps"]) {
      FLATBENCH_ASSIGN_OR_RETURN(Step step, StepFromJson(s));
      if (step.mode != phase.mode) {
        return Status::Corruption(
            "schedule: a " + std::string(ModeName(step.mode)) + " step in a " +
            ModeName(phase.mode) + " phase");
      }
      phase.steps.push_back(std::move(step));
    }
    phases.push_back(std::move(phase));
  }
  return phases;
}

}  // namespace flatbench::bench
