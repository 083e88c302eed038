#pragma once
// What flatbench bench makes of the run asked for (bench/run_request.h):
// the parameters on a dataset's spec, the plan's calibration, the journal's
// record, and what starts a worker.

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

// With --write-while-reading, the backends of o->backends whose stores can
// be read while written (backends::CheckLive) run the writing cells; the
// others are left out, each with its reason on stderr unless `quiet`.
// kUsage, with every reason, when none can.
Status ChooseWritingBackends(bool quiet, bench::ScheduleOptions* o);

// Opens a store of a dataset live, on the files of a folder (the writing
// steps' opener: backends::OpenLive).
bench::LiveOpener MakeLiveOpener();

// The request as a run's journal records it (bench/journal.h): every field
// that shapes the results, resolved as the run uses it (the backends
// chosen, the reads and repetitions at the dataset's scale, the eviction on
// this host); where the results go and how this invocation runs (dir, out,
// force, quiet, fresh, plan, calibration and results-root) at their
// defaults. A rerun resumes it only with the same. A new field is
// recorded unless it is named here.
bench::RunRequest JournalRequest(const bench::RunRequest& a,
                                 const bench::RunParameters& params);

// The command line of a worker (argv[1..] of this binary).
std::vector<std::string> WorkerCommandLine();

// The message that starts worker `b`, its first line on stdin: the
// request, with the eviction resolved (`evict`), and the run's origin
// (CLOCK_MONOTONIC).
nlohmann::json WorkerStart(const bench::RunRequest& a, const std::string& b,
                           const std::string& evict, uint64_t origin);

}  // namespace flatbench::cli
