#pragma once
// The results document of RESULTS_FORMAT.md: run-wide context, and the
// merge of per-backend (per-process) results and device rows into one
// google-benchmark JSON file.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/device.h"
#include "bench/harness.h"
#include "datagen/dataset.h"

namespace flatbench::bench {

// Library versions the CLI knows (bench/ does not link the backends).
struct Versions {
  std::string rocksdb = "not built";
  std::string lmdb = "not built";
};

// flatbench.* run-wide context keys: binary, dataset identity, run
// parameters, environment, library versions.
nlohmann::json RunContext(const datagen::Dataset& dataset,
                          const BenchOptions& options,
                          const Versions& versions);

// One backend's results as a stand-alone document (what a child writes).
nlohmann::json BackendDocument(const BackendRun& run);

// Merges: google-benchmark context from the first document (or device run)
// that has one, then `run_context`, then each document's own context keys;
// every document's entries in order, then the device rows.
// `device_status` is recorded as flatbench.device.
nlohmann::json MergeDocuments(const nlohmann::json& run_context,
                              const std::vector<nlohmann::json>& documents,
                              const DeviceRun* device,
                              const std::string& device_status);

}  // namespace flatbench::bench
