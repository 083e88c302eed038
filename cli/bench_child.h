#pragma once
// flatbench bench's child roles, each a hidden command told its work by
// messages on stdin: a backend's worker (bench-worker) and a startup probe
// (bench-probe). Each returns its exit code.

namespace flatbench::cli {

// Worker process: one backend, answering the parent's requests line by line
// on stdin/stdout until stdin closes. The first line is the start message
// (WorkerStart in cli/bench_args.h: the backend, the run's origin and the
// request), answered {"ok": true} once the worker holds the dataset, or
// with the error that stops it.
int RunWorker();

// Startup probe process: told what to read by one line on stdin (bench/
// startup.h ProbeRequest), it opens the backend, reads the key and prints
// one JSON line on stdout.
int RunProbe();

}  // namespace flatbench::cli
