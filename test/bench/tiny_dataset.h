#pragma once
// The shared tiny dataset (test/tiny_dataset.h) and how a bench worker opens
// its backends.

#include <string>

#include "backends/table.h"
#include "bench/worker.h"
#include "datagen/dataset.h"
#include "test/tiny_dataset.h"

namespace flatbench::testing {

inline bench::Opener TinyOpener(const datagen::Dataset& ds) {
  return [ds](const std::string& name, const OpenOptions& options) {
    return backends::Open(name, ds.BackendDir(name), options);
  };
}

}  // namespace flatbench::testing
