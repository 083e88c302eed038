#pragma once
// What bench's plan knows of a run before it starts: every backend's
// role, files and resident share, and the host's costs.

#include <cstdint>

#include "bench/plan.h"
#include "bench/run_request.h"
#include "common/status.h"
#include "datagen/dataset_dir.h"

namespace flatbench::cli {

// The plan's view of the run: every backend's role (from the thresholds),
// its files, and what the host can hold warm; with --device-profile, the
// host the profile describes (bench::HostCostFromProfile). `ds` null: the
// dataset is not built yet (gonogo --plan before gen), and each backend's
// size is gen's estimate.
Result<bench::PlanInput> PlanInputFor(const bench::RunRequest& a,
                                      const dataset::Spec& spec,
                                      const datagen::Dataset* ds,
                                      const bench::RunParameters& params,
                                      uint64_t warm_limit);

}  // namespace flatbench::cli
