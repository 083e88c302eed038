#pragma once
// flatbench bench's parent: it plans the run, starts one worker process per
// backend, drives the interleaved schedule (bench/run.h) and writes the
// results file.

#include "cli/bench_args.h"
#include "common/status.h"

namespace flatbench::cli {

// The run, or only its plan (--plan).
Status RunParent(const BenchArgs& a);

// After a stop signal: where the run stopped and what a rerun does; returns
// 128 + N.
int Stopped(const BenchArgs& a, const Status& where);

}  // namespace flatbench::cli
