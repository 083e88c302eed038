#pragma once
// flatbench bench's arguments: the flags of all three roles (the parent,
// a backend's worker, a startup probe), what they make of a dataset's spec,
// and the argv that starts a worker.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/defaults.h"
#include "bench/plan_calibration.h"
#include "bench/run_context.h"
#include "bench/schedule.h"
#include "bench/worker.h"
#include "cli/flags.h"
#include "common/results_schema.h"
#include "datagen/dataset_dir.h"
#include "dataset/spec.h"

namespace flatbench::cli {

// Where gonogo puts its timestamped results folders unless --results says
// otherwise; the plan calibrates from the newest of them by default.
inline constexpr char kDefaultResultsRoot[] = "results";

struct BenchArgs {
  std::string dir, out;
  std::vector<std::string> backends;  // Empty: every one the dataset holds.
  std::vector<std::string> modes = Names(results::kModes);
  std::vector<std::string> tables = Names(results::kTables);
  std::vector<std::string> kinds = {std::string(results::kKindHit),
                                    std::string(results::kKindMissAbsent),
                                    std::string(results::kKindMissLive)};
  std::vector<int> threads = {bench::kDefaultThreads.begin(),
                              bench::kDefaultThreads.end()};
  // Whether --threads was given: batch cells then run at those thread
  // counts, else at bench::kDefaultBatchThreads.
  bool threads_given = false;
  uint64_t reads = 0;         // 0: bench::DefaultReadsPerPass(scale).
  int repetitions = 0;        // 0: 3 at smoke and below, 5 above.
  uint64_t device_reads = 0;  // 0: as many as --reads.
  bool no_device = false;
  std::string device_profile;  // Recorded in the results' context.
  std::string evict = "auto";
  bool force = false;
  bool fresh = false;  // Remove the journal of an earlier run first.
  uint64_t check_samples = 10'000;
  uint64_t cache_mib = 1024;
  uint32_t scan_length = bench::kDefaultScanLength;
  uint64_t scans = 0;  // 0: a tenth of --reads.
  uint64_t startup_probes = bench::kDefaultStartupProbes;
  uint32_t batch_size = bench::kDefaultBatchSize;
  bool quiet = false;
  bool plan_only = false;       // --plan: print the plan, run nothing.
  bool full_reference = false;  // Reference rows run the whole matrix.
  std::string thresholds;       // Which backends are gated.
  // Results whose figures calibrate the plan (bench/plan_calibration.h):
  // empty, the newest of this host where bench and gonogo leave them;
  // "none", the built-in model alone.
  std::string calibration;
  // Hidden (gonogo): the folder of its timestamped results, searched for
  // calibration by default.
  std::string results_root = kDefaultResultsRoot;
  // Hidden (gonogo --plan): plan a dataset of this scale not built yet.
  std::string plan_scale;
  uint64_t plan_accounts = 0;
  uint32_t plan_slots = 4;
  // Hidden: be one backend's worker, answering requests on stdin.
  std::string worker;
  uint64_t run_origin_ns = 0;
  // Hidden: be a startup probe of this backend (bench/startup.h).
  std::string startup_probe, probe_key;
  bool probe_lazy = false;
};

// The choices of --modes and --kinds.
std::vector<std::string> ModeNames();
std::vector<std::string> KindNames();

// The run's parameters: the schedule the flags ask for on a dataset of
// `spec`, and how cold passes evict.
bench::RunParameters MakeParameters(const BenchArgs& a,
                                    const dataset::Spec& spec);

// This host's last results as the plan's calibration (bench/
// plan_calibration.h): --calibration's file, or the newest of this host in
// RESULTS_ROOT/*/bench.json and beside --out; none with
// --calibration none or --device-profile (a plan for another host).
std::optional<bench::Calibration> CalibrationFor(
    const BenchArgs& a, const dataset::Spec& spec,
    const bench::RunParameters& params);

// Opens a backend of `ds` by name (the workers' and probes' opener).
bench::Opener MakeOpener(const datagen::Dataset& ds);

// Every flag that shapes the run, by name ("--reads"), with its value as
// the run uses it (defaults resolved): a run's journal records them, and a
// rerun resumes it only with the same (bench/journal.h).
nlohmann::json JournalFlags(const BenchArgs& a,
                            const bench::RunParameters& params);

// The arguments of worker `b` (argv[1..] of this binary).
std::vector<std::string> WorkerArgs(const BenchArgs& a, const std::string& b,
                                    const std::string& evict, uint64_t origin);

}  // namespace flatbench::cli
