#pragma once
// A scale sweep: datasets of increasing size in turn, each built, measured
// with the same bench schedule and gates, its backends' read geometry
// recorded, and removed (unless kept), all recorded in one document,
// DIR/sweep.json (common/sweep_schema.h, bench/SWEEP_FORMAT.md).
//
// That file is also the sweep's state: a size is recorded only once it is
// measured, so a rerun skips it; an interrupted size is built again (gen
// resumes per backend) and measured again. Only datasets the sweep created
// itself, listed in the file before their first byte is written, are ever
// removed.
//
// The steps that build and measure are supplied by the caller (the CLI runs
// `flatbench gen` and `flatbench bench` as child processes, the very code
// paths of those commands), so this file holds only the bookkeeping.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/worker.h"
#include "common/status.h"
#include "dataset/spec.h"

namespace flatbench::bench {

struct SweepPlan {
  std::string dir;                 // sweep.json, the datasets, bench files.
  std::vector<uint64_t> accounts;  // Sizes; REQUIRES: ascending, distinct.
  uint32_t slots_per_account = 4;
  uint64_t seed = dataset::kDefaultSeed;
  std::vector<std::string> backends;
  // Read paths measured besides `backends` on their files ("arena+cache"),
  // built by no step of their own; their geometry is their backend's.
  std::vector<std::string> read_variants;
  // Flags given to every size's bench run (modes, kinds, threads, reads,
  // repetitions, eviction), recorded so a resumed sweep measures alike.
  std::vector<std::string> bench_args;
  bool keep = false;      // Keep each dataset after measuring it.
  bool progress = true;   // Progress lines on stderr.
  double max_hours = 24;  // Refuse a plan estimated to take longer.
  // Measure the directory's device profile (bench/device_profile.h) once,
  // before the first size, and record it (sweep::kDeviceProfile).
  bool device_profile = true;
  // gen's jobs (gen --jobs) and the host's cores, for the build estimate
  // (dataset::EstimateGenSeconds); 0: the host's hardware threads.
  unsigned jobs = 0;
  unsigned cores = 0;
};

struct SweepSteps {
  // Builds (or resumes building) the dataset of `spec` in `dataset_dir`
  // with the plan's backends; returns how that ended (flatbench sweep: the
  // gen child's end, read by bench/child_process.h's ChildStatus).
  std::function<Status(const dataset::Spec& spec,
                       const std::string& dataset_dir)>
      generate;
  // Runs bench on the dataset with plan.bench_args, writing `out`;
  // returns how that ended, as `generate`.
  std::function<Status(const std::string& dataset_dir, const std::string& out)>
      bench;
  // Opens a backend of the dataset in `dataset_dir`.
  std::function<Result<std::unique_ptr<Backend>>(const std::string& dataset_dir,
                                                 const std::string& backend)>
      open;
  // Measures the device profile of plan.dir (`flatbench device`); returns
  // the profile document. Called only when plan.device_profile and the
  // document holds none yet.
  std::function<Result<nlohmann::json>()> profile;
  // Test hook: called after each size is built, before it is measured;
  // returning false stops the sweep there as if interrupted (kIOError).
  std::function<bool(uint64_t accounts)> after_generate;
};

// What a plan needs, from dataset/estimate.h and datagen/needs.h, and the
// bench plan of each size.
struct SweepNeeds {
  uint64_t disk_bytes = 0;  // Peak: the largest size (all sizes with keep).
  uint64_t ram_bytes = 0;   // The largest size's generator, plus 1 GiB.
  double build_seconds = 0;
  double bench_seconds = 0;  // Each size's bench plan (plan.h), summed.
};
// `bench_seconds` prices one size's bench run: the estimate of the plan
// bench makes for that dataset (flatbench sweep: bench::MakePlan with the
// sweep's bench flags).
SweepNeeds EstimateSweep(
    const SweepPlan& plan,
    const std::function<double(const dataset::Spec&)>& bench_seconds);

// Refuses (kRefuseOverwrite, with the figures) a plan that does not fit
// the free disk under plan.dir, the available memory, or plan.max_hours.
Status CheckSweepFits(const SweepPlan& plan, const SweepNeeds& needs);

// The read geometry of every backend in `backends` that reports one, as
// the kGeometry object: backend -> table -> keys.
Result<nlohmann::json> CollectGeometry(
    const std::vector<std::string>& backends,
    const std::function<Result<std::unique_ptr<Backend>>(const std::string&)>&
        open);

// Runs (or resumes) the sweep. Errors: kRefuseOverwrite when DIR/sweep.json
// belongs to another plan or a dataset directory holds another dataset;
// a step's failure as the Status of its exit code, naming the size.
Status RunSweep(const SweepPlan& plan, const SweepSteps& steps);

}  // namespace flatbench::bench
