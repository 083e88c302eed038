#pragma once
// flatbench bench's child roles: a backend's worker (flatbench
// bench-worker), and a startup probe (bench --startup-probe). Each returns
// its exit code.

#include "cli/bench_args.h"

namespace flatbench::cli {

// Worker process: one backend, answering the parent's requests line by line
// on stdin/stdout until stdin closes. The first line is the start message
// (WorkerStart in cli/bench_args.h: the backend, the run's origin and the
// request), answered {"ok": true} once the worker holds the dataset, or
// with the error that stops it.
int RunWorker();

// Startup probe process: open, one hit read, one JSON line on stdout.
int RunProbe(const BenchArgs& a);

}  // namespace flatbench::cli
