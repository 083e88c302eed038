#pragma once
// flatbench bench's child roles: a backend's worker (bench --worker), and a
// startup probe (bench --startup-probe). Each returns its exit code.

#include "cli/bench_args.h"

namespace flatbench::cli {

// Worker process: one backend, answering the parent's requests line by line
// on stdin/stdout until stdin closes.
int RunWorker(const BenchArgs& a);

// Startup probe process: open, one hit read, one JSON line on stdout.
int RunProbe(const BenchArgs& a);

}  // namespace flatbench::cli
