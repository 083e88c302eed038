#include "bench/schedule.h"

#include <algorithm>
#include <map>

#include "bench/key_plan.h"
#include "common/results_schema.h"

namespace flatbench::bench {
namespace {

using datagen::KeyKind;

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

const char* ModeName(Mode mode) {
  switch (mode) {
    case Mode::kWarm:
      return "warm";
    case Mode::kCold:
      return "cold";
    case Mode::kColdLazy:
      return "cold-lazy";
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

std::string EntryName(const std::string& backend, Table table,
                      std::string_view kind, Mode mode, int threads, int rep) {
  return backend + "/" + TableName(table) + "/" + std::string(kind) + "/" +
         ModeName(mode) + "/threads:" + std::to_string(threads) +
         "/rep:" + std::to_string(rep);
}

std::vector<Cell> EnumerateCells(const datagen::Spec& spec,
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

Result<std::vector<Phase>> MakeSchedule(const datagen::Spec& spec,
                                        const ScheduleOptions& o) {
  const std::vector<Cell> cells =
      EnumerateCells(spec, o.tables, o.kinds, o.threads);
  // Key space of each (table, kind), and where its next pass starts.
  std::map<std::pair<Table, KeyKind>, uint64_t> space, next;
  for (const Cell& c : cells) {
    auto key = std::make_pair(c.table, c.kind);
    if (space.count(key)) continue;
    datagen::Sampler sampler(spec, c.table, c.kind,
                             DrawSeed(o.draw_seed, c.table, c.kind));
    space[key] = sampler.space();
    next[key] = 0;
  }
  std::vector<Phase> phases;
  for (Mode mode : o.modes) {
    Phase phase{mode, {}};
    std::vector<std::string> backends;
    for (const auto& b : o.backends) {
      if (mode != Mode::kWarm || !Contains(o.no_warm, b)) backends.push_back(b);
    }
    if (backends.empty()) continue;
    for (int rep = 0; rep < o.repetitions; ++rep) {
      for (size_t ci = 0; ci < cells.size(); ++ci) {
        const Cell& c = cells[ci];
        const auto key = std::make_pair(c.table, c.kind);
        const uint64_t n = static_cast<uint64_t>(c.threads);
        uint64_t rpt = std::max<uint64_t>(1, o.reads_per_pass / n);
        rpt = std::min(rpt, space[key] / n);
        if (rpt == 0) {
          return Status::Usage("--threads " + std::to_string(c.threads) +
                               ": more threads than " + TableName(c.table) +
                               " " + datagen::KeyKindName(c.kind) + " keys");
        }
        uint64_t& first = next[key];
        uint64_t device = 0;
        if (IsCold(mode) && c.kind == KeyKind::kHit && o.device_reads > 0) {
          device = std::max<uint64_t>(1, o.device_reads / n);
        }
        const size_t shift = (static_cast<size_t>(rep) + ci) % backends.size();
        for (size_t k = 0; k < backends.size(); ++k) {
          Step s;
          s.backend = backends[(k + shift) % backends.size()];
          s.mode = mode;
          s.cell = c;
          s.repetition = rep;
          s.first_index = first;
          s.reads_per_thread = rpt;
          s.device_reads_per_thread = device;
          phase.steps.push_back(std::move(s));
        }
        first = (first + n * rpt) % space[key];
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
         "the files holding that backend's table (the device cell)";
}

nlohmann::json StepToJson(const Step& s) {
  return {{"backend", s.backend},
          {"mode", ModeName(s.mode)},
          {"table", TableName(s.cell.table)},
          {"kind", datagen::KeyKindName(s.cell.kind)},
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
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("step: ") + e.what());
  }
  if (s.cell.threads < 1 || s.reads_per_thread == 0) {
    return Status::Corruption("step: no threads or no reads: " + j.dump());
  }
  return s;
}

}  // namespace flatbench::bench
