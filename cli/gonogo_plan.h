#pragma once
// gonogo's choice of backends and its plan: what each backend costs (disk,
// the generator's RAM, gen time at one job and at the run's jobs, bench
// time), what the whole run needs, and which of those figures were measured
// and which assumed. `gonogo --plan` prints it; with --device-profile it is
// the plan for the host that profile describes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/bench_args.h"
#include "common/device_profile.h"
#include "common/status.h"
#include "dataset/spec.h"

namespace flatbench::cli {

// What gonogo measures when --backends is not given. At the thresholds'
// gate scale: the backends the thresholds name (gated) that this build
// holds, and the read variants gonogo measures by default of a gated store
// (arena+cache); the reference rows only on request. The same for the aged
// shape (`aged`) at any scale. Below it, fresh: every store buildable at
// `spec`'s size, and those read variants. `thresholds`: a file, or empty
// for the checked-in one.
Result<std::vector<std::string>> GonogoDefaultBackends(
    const dataset::Spec& spec, const std::string& thresholds,
    bool aged = false);

// The jobs a gen of `jobs` (0: the host's hardware threads) runs.
unsigned ResolveJobs(unsigned jobs);

// One row of the plan: a backend of the run, or a store this build holds
// that the run leaves out (what adding it would cost).
struct BackendCostRow {
  std::string backend;
  bool in_run = false;
  bool built = false;   // Complete in the dataset already: no gen.
  uint64_t disk = 0;    // 0 for a read variant (its store's files).
  uint64_t ram = 0;     // The generator's peak while it builds.
  double gen_one = 0;   // Alone, one job.
  double gen_jobs = 0;  // Alone, the plan's jobs.
  double bench = 0;     // Its passes in the bench plan.
};

struct GonogoEstimate {
  std::string host;  // "this host (2 hardware threads)", or the profile's.
  unsigned jobs = 1, cores = 1;
  std::vector<BackendCostRow> rows;
  uint64_t disk = 0;  // What the run needs from an empty dataset directory.
  uint64_t ram = 0;
  double gen_one = 0;   // Every store of the run, one job, one after another.
  double gen_jobs = 0;  // With `jobs` on `cores` (EstimateGenSeconds).
  double bench = 0;     // The bench plan's estimate (bench::MakePlan).
  std::vector<std::string> measured, assumed;
};

// `request`: the bench phase's arguments (its backends are the run's);
// `profile`: a device profile of the target host, or none for this host.
Result<GonogoEstimate> EstimateGonogo(
    const dataset::Spec& spec, const std::string& dir,
    const bench::RunRequest& request, unsigned jobs,
    const std::optional<DeviceProfileFile>& profile);

std::string FormatGonogoEstimate(const GonogoEstimate& e);

}  // namespace flatbench::cli
