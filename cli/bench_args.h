#pragma once
// flatbench bench's arguments: the run asked for (bench/run_request.h) and
// the role of this process (the parent or a startup probe), what they make
// of a dataset's spec, and what starts a worker.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/defaults.h"
#include "bench/plan_calibration.h"
#include "bench/run_context.h"
#include "bench/run_request.h"
#include "bench/schedule.h"
#include "bench/worker.h"
#include "cli/flags.h"
#include "common/results_schema.h"
#include "datagen/dataset_dir.h"
#include "dataset/spec.h"

namespace flatbench::cli {

// bench's command: the run it is asked for, and (hidden options) whether
// this process is a startup probe instead. A worker is its own hidden
// command, told the run by a message (WorkerStart).
struct BenchArgs : bench::RunRequest {
  // Be a startup probe of this backend (bench/startup.h).
  std::string startup_probe, probe_key;
  bool probe_lazy = false;
};

// The choices of --modes and --kinds.
std::vector<std::string> ModeNames();
std::vector<std::string> KindNames();

// The run's parameters: the schedule the flags ask for on a dataset of
// `spec`, and how cold passes evict.
bench::RunParameters MakeParameters(const bench::RunRequest& a,
                                    const dataset::Spec& spec);

// This host's last results as the plan's calibration (bench/
// plan_calibration.h): --calibration's file, or the newest of this host in
// RESULTS_ROOT/*/bench.json and beside --out; none with
// --calibration none or --device-profile (a plan for another host).
std::optional<bench::Calibration> CalibrationFor(
    const bench::RunRequest& a, const dataset::Spec& spec,
    const bench::RunParameters& params);

// Opens a backend of `ds` by name (the workers' and probes' opener).
bench::Opener MakeOpener(const datagen::Dataset& ds);

// The request as a run's journal records it (bench/journal.h): what
// shapes the results, resolved as the run uses it (the backends chosen,
// the reads and repetitions at the dataset's scale, the eviction on this
// host), and the rest at its defaults; a rerun resumes it only with the
// same.
bench::RunRequest JournalRequest(const bench::RunRequest& a,
                                 const bench::RunParameters& params);

// The command line of a worker (argv[1..] of this binary).
std::vector<std::string> WorkerCommandLine();

// The message that starts worker `b`, its first line on stdin: the part of
// the request a worker uses, with the eviction resolved (`evict`), and the
// run's origin (CLOCK_MONOTONIC).
nlohmann::json WorkerStart(const bench::RunRequest& a, const std::string& b,
                           const std::string& evict, uint64_t origin);

}  // namespace flatbench::cli
