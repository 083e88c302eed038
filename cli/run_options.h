#pragma once
// The options of a bench run (bench::RunRequest), declared once: `bench`
// offers them all, `gonogo` and `sweep` the ones they pass on to the bench
// they start, each in its own words. A child bench is started from a
// request by one function, its command line derived from the request's
// JSON, never spelled out option by option.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "bench/run_request.h"

namespace flatbench::cli {

// The command whose options are being declared.
enum class RunCommand { kBench, kGonogo, kSweep };

// Adds the run options `command` offers to `sub`, bound to the fields of
// `*r`, whose values are the defaults --help shows.
void AddRunOptions(CLI::App* sub, bench::RunRequest* r, RunCommand command);

// The options that ask bench for `r` (argv without "bench"): every field
// that differs from a default RunRequest's, as "--NAME VALUE" (a list
// comma-separated; a flag alone), in RunRequestFields order.
std::vector<std::string> RequestArgs(const bench::RunRequest& r);

// "bench" followed by RequestArgs(r): argv[1..] of a child bench.
std::vector<std::string> BenchCommandLine(const bench::RunRequest& r);

}  // namespace flatbench::cli
