#pragma once
// The shared tiny dataset (test/tiny_dataset.h), how a bench worker opens
// its backends, and a counter read off the entry of a pass.

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/table.h"
#include "bench/worker.h"
#include "common/results_schema.h"
#include "datagen/dataset_dir.h"
#include "test/tiny_dataset.h"

namespace flatbench::testing {

inline bench::Opener TinyOpener(const datagen::Dataset& ds) {
  return [ds](const std::string& name, const OpenOptions& options) {
    return backends::Open(name, ds.BackendDir(name), options);
  };
}

// Counter `c` of results entry `e`; fails the test when `e` lacks it.
inline double CounterValue(const nlohmann::json& e, const results::Counter& c) {
  REQUIRE(e.contains(results::KeyOf(c)));
  return e[results::KeyOf(c)].get<double>();
}

}  // namespace flatbench::testing
