#pragma once
// One benchmarks[] entry read through the results contract: its name by
// the cell grammar, its counters by their types, and the cross-checks
// that make a value impossible (run_data.h says which).

#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"
#include "report/run_data.h"

namespace flatbench::report {

// Reads `entry` (an iteration entry) into `pass`. kCorruption names `file`,
// the benchmark and the counter at fault.
Status ReadEntry(const nlohmann::json& entry, const std::string& file,
                 Pass* pass);

// kCorruption naming `where` unless `value` has `type` (a context type).
Status CheckContextValue(const nlohmann::json& value, results::Type type,
                         const std::string& where);

}  // namespace flatbench::report
