#pragma once
// flatbench bench's parent: it plans the run, starts one worker process per
// backend, drives the interleaved schedule (bench/run.h) and writes the
// results file.

#include <cstdint>

#include "bench/plan.h"
#include "cli/bench_args.h"
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

// The run, or only its plan (--plan).
Status RunParent(const BenchArgs& a);

// After a stop signal: where the run stopped and what a rerun does; returns
// 128 + N.
int Stopped(const BenchArgs& a, const Status& where);

}  // namespace flatbench::cli
