#pragma once
// flatbench bench's parent: it plans the run, starts one worker process per
// backend, drives the interleaved schedule (bench/run.h) and writes the
// results file.

#include <cstdint>

#include "cli/bench_args.h"
#include "cli/bench_plan_input.h"
#include "common/status.h"
#include "datagen/dataset_dir.h"

namespace flatbench::cli {

// The run, or only its plan (--plan). With --plan and `unbuilt` (gonogo
// --plan, in its own process): when a.dir does not hold every backend
// asked yet, the plan is of a dataset of that spec, sized by gen's
// estimates.
Status RunParent(const bench::RunRequest& a,
                 const dataset::Spec* unbuilt = nullptr);

// After a stop signal: where the run stopped and what a rerun does; returns
// 128 + N.
int Stopped(const bench::RunRequest& a, const Status& where);

}  // namespace flatbench::cli
