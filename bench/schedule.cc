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
    case Op::kWriting:
      return std::string(results::kKindWriting);
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
    case Op::kWriting:  // The hit reads' keys, read while writing.
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
        // Device cells follow; writing cells come with --write-while-reading.
        if (k == results::kKindDevice || k == results::kKindWriting) continue;
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

namespace {

// The read cells, then scans, the startup probe and batches as asked.
std::vector<Cell> ScheduleCells(const dataset::Spec& spec,
                                const ScheduleOptions& o) {
  std::vector<Cell> cells = EnumerateCells(spec, o.tables, o.kinds, o.threads);
  if (o.scan) {
    for (const Cell& c :
         EnumerateCells(spec, o.tables, {KeyKind::kHit}, o.threads)) {
      cells.push_back({c.table, KeyKind::kHit, c.threads, Op::kScan});
    }
  }
  if (o.startup) {
    cells.push_back({Table::kAccount, KeyKind::kHit, 1, Op::kStartup});
  }
  if (o.batch) {
    for (const Cell& c :
         EnumerateCells(spec, o.tables, {KeyKind::kHit}, o.batch_threads)) {
      cells.push_back({c.table, KeyKind::kHit, c.threads, Op::kBatch});
    }
  }
  if (o.writing) {
    for (const Cell& c :
         EnumerateCells(spec, o.tables, {KeyKind::kHit}, o.writing_threads)) {
      cells.push_back({c.table, KeyKind::kHit, c.threads, Op::kWriting});
    }
  }
  return cells;
}

// Whether `backend` runs a cold hit read cell of `table` at `threads` in
// (mode, rep) with its device cell: a batch cell at that depth then has
// its device rate already.
bool DeviceMeasured(const ScheduleOptions& o, const std::vector<Cell>& cells,
                    const std::string& backend, Mode mode, Table table,
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
}

// Whether a batch cell before cells[ci], on its table, runs for `backend`
// in this mode and repetition: that one carries the device cell at depth
// B, which one repetition measures once.
bool EarlierBatch(const ScheduleOptions& o, const std::vector<Cell>& cells,
                  size_t ci, const std::string& backend, Mode mode, int rep) {
  auto scope = o.scopes.find(backend);
  for (size_t i = 0; i < ci; ++i) {
    const Cell& c = cells[i];
    if (c.op != Op::kBatch || c.table != cells[ci].table) continue;
    if (scope == o.scopes.end() || scope->second.Runs(mode, c, rep)) {
      return true;
    }
  }
  return false;
}

// Reads (or scans, batches, probes) per thread of a cell's pass: its
// share of the pass's operations, no more than its key space holds.
Result<uint64_t> ReadsPerThread(const ScheduleOptions& o, const Cell& c,
                                uint64_t scans, uint64_t space) {
  const uint64_t n = static_cast<uint64_t>(c.threads);
  // Keys per operation: a batch reads batch_size keys per call.
  const uint64_t per_op = c.op == Op::kBatch ? o.batch_size : 1;
  // A writing pass reads at least a read pass's keys.
  const uint64_t ops = c.op == Op::kRead || c.op == Op::kWriting
                           ? o.reads_per_pass
                       : c.op == Op::kScan  ? scans
                       : c.op == Op::kBatch ? o.reads_per_pass / per_op
                                            : o.startup_probes;
  const uint64_t rpt =
      std::min(std::max<uint64_t>(1, ops / n), space / (n * per_op));
  if (rpt > 0) return rpt;
  if (c.op == Op::kBatch) {
    return Status::Usage("--batch-size " + std::to_string(o.batch_size) +
                         " at " + std::to_string(c.threads) +
                         " threads: more keys than the " + TableName(c.table) +
                         " table's " + std::to_string(space) + " hit keys");
  }
  return Status::Usage("--threads " + std::to_string(c.threads) +
                       ": more threads than " + TableName(c.table) + " " +
                       datagen::KeyKindName(c.kind) + " keys");
}

// One cell's steps in (mode, rep): every backend that runs it, in an order
// rotated by (rep + cell index), reading from key `first` on.
void AddCellSteps(const ScheduleOptions& o, const std::vector<Cell>& cells,
                  Mode mode, int rep, size_t ci,
                  const std::vector<std::string>& backends, uint64_t first,
                  uint64_t rpt, Phase* phase) {
  const Cell& c = cells[ci];
  uint64_t device = 0;
  // The device cell is the point-read reference: hit reads only.
  if (IsCold(mode) && c.op == Op::kRead && c.kind == KeyKind::kHit &&
      o.device_reads > 0) {
    device = std::max<uint64_t>(
        1, o.device_reads / static_cast<uint64_t>(c.threads));
  }
  std::vector<std::string> runs;
  const bool writing = c.op == Op::kWriting;
  if (writing && (rep >= o.writing_repetitions || mode == Mode::kColdLazy)) {
    return;
  }
  for (const auto& b : backends) {
    if (writing) {
      if (Listed(o.writing_backends, b)) runs.push_back(b);
      continue;
    }
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
    if (writing) {
      s.block_rate = o.block_rate;
      s.merge_every = o.merge_every;
    }
    if (c.op == Op::kBatch) {
      s.batch_size = o.batch_size;
      const int depth = static_cast<int>(o.batch_size);
      if (IsCold(mode) && o.device_reads > 0 &&
          !DeviceMeasured(o, cells, s.backend, mode, c.table, depth, rep) &&
          !EarlierBatch(o, cells, ci, s.backend, mode, rep)) {
        s.device_reads_per_thread =
            std::max<uint64_t>(1, o.device_reads / o.batch_size);
      }
    }
    phase->steps.push_back(std::move(s));
  }
}

}  // namespace

Result<std::vector<Phase>> MakeSchedule(const dataset::Spec& spec,
                                        const ScheduleOptions& o) {
  const std::vector<Cell> cells = ScheduleCells(spec, o);
  if (o.scan && o.scan_length == 0) {
    return Status::Usage("--scan-length: must be at least 1");
  }
  if (o.batch && o.batch_size == 0) {
    return Status::Usage("--batch-size: must be at least 1");
  }
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
        FLATBENCH_ASSIGN_OR_RETURN(const uint64_t rpt,
                                   ReadsPerThread(o, c, scans, space[key]));
        AddCellSteps(o, cells, mode, rep, ci, backends, next[key], rpt, &phase);
        const uint64_t per_op = c.op == Op::kBatch ? o.batch_size : 1;
        next[key] =
            (next[key] + static_cast<uint64_t>(c.threads) * rpt * per_op) %
            space[key];
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
         "pass at B threads measured one in that repetition; writing cells, "
         "when asked, come last in the warm and cold modes, in the first "
         "--writing-repetitions repetitions, "
         "each on a copy of the store";
}

}  // namespace flatbench::bench
