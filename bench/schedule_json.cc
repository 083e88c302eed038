// Steps and schedules as JSON: the journal keeps them, and a worker
// receives each step as a document.
#include <nlohmann/json.hpp>

#include "bench/schedule.h"
#include "common/results_schema.h"

namespace flatbench::bench {

using datagen::KeyKind;

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
          {"device_reads_per_thread", s.device_reads_per_thread},
          {"block_rate", s.block_rate},
          {"merge_every", s.merge_every}};
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
                : op == results::kKindWriting ? Op::kWriting
                                              : Op::kRead;
    if (s.cell.op == Op::kRead && op != datagen::KeyKindName(s.cell.kind)) {
      return Status::Corruption("step: bad op: " + j.dump());
    }
    s.scan_length = j.at("scan_length").get<uint32_t>();
    // Journals written before batch cells existed have no batch_size.
    s.batch_size = j.value("batch_size", uint32_t{0});
    s.block_rate = j.value("block_rate", uint64_t{0});
    s.merge_every = j.value("merge_every", uint64_t{0});
  } catch (const nlohmann::json::exception& e) {
    return Status::Corruption(std::string("step: ") + e.what());
  }
  if (s.cell.threads < 1 || s.reads_per_thread == 0 ||
      (s.cell.op == Op::kScan && s.scan_length == 0) ||
      (s.cell.op == Op::kBatch && s.batch_size == 0) ||
      (s.cell.op == Op::kWriting && s.merge_every == 0)) {
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
