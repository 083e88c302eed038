#pragma once
// The library versions a results file records (the run context): those of
// the backends linked into this build.

#include "bench/results.h"

namespace flatbench::cli {

bench::Versions LibraryVersions();

}  // namespace flatbench::cli
