#pragma once
// The run-wide context keys of the results document (RESULTS_FORMAT.md):
// binary, dataset identity, run parameters, schedule, environment, library
// versions.

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/schedule.h"
#include "datagen/dataset_dir.h"

namespace flatbench::bench {

// Versions of the libraries linked into this build, by library name
// (dataset::BackendFacts::library): the CLI fills it from the backends
// table (bench/ does not link the backends). The context records each
// library a backend's facts name, "not built" when it is not in here.
using Versions = std::map<std::string, std::string>;

struct RunParameters {
  ScheduleOptions schedule;
  double eviction_bound = kEvictionBound;
  double warm_bound = kWarmBound;
  bool verify_checksums = true;
  std::string evict = "drop_caches";  // Or "fadvise".
};

// flatbench.* run-wide context keys.
nlohmann::json RunContext(const datagen::Dataset& dataset,
                          const RunParameters& parameters,
                          const Versions& versions);

}  // namespace flatbench::bench
