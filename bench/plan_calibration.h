#pragma once
// This host's last results as the plan's figures (RESEARCH.md section 6,
// "Calibration"). A results file already holds what a step cost: each
// entry's pass_start_s (from the run's start), its loop (iterations /
// reads_per_s) and its open (open_seconds). A step is a pass with the
// device cell before it; its wall time is the next step's start less its
// own. From the newest results file of this host (its machine-id hash):
//
//   device       its device cells' median reads/s at each depth, when it
//                measured the same block device
//   step_s       a warm step's wall time less its loop (median)
//   eviction     a cold step's wall time less its device cell, open and
//                loop, less step_s (median), when it evicted the same way
//   steps        each step's own wall time (median over repetitions), when
//                it measured the same dataset with the same reads per pass
//                and per device cell; then also the time before its first
//                step (workers started, sanity checks), per backend: each
//                backend's own start and warm begin when the results
//                recorded them, else the whole time shared out evenly
//
// Anything it does not give comes from the built-in model (plan_cost.h),
// and the plan says which is which (Describe).

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/plan_cost.h"
#include "bench/schedule.h"

namespace flatbench::bench {

// What a results file must match to calibrate a plan.
struct CalibrationTarget {
  std::string machine_id_hash;  // This host's; empty: nothing matches.
  std::string device;           // The data's block device; empty: any.
  std::string evict;            // "drop_caches" or "fadvise".
  std::string spec;             // The dataset planned, canonical.
  uint64_t reads_per_pass = 0;
  uint64_t device_reads = 0;
};

struct Calibration {
  std::string source;              // The results file.
  std::string run_start;           // When its run started.
  std::vector<DeviceRate> device;  // Empty: not calibrated.
  std::optional<double> step_s, evict_s;
  std::string evict;  // The eviction evict_s is of.
  // The same dataset and pass sizes: its steps' own times apply.
  bool same_run = false;
  std::map<std::string, double> step_seconds;  // By StepKey.
  std::optional<double> start_s;               // Per backend.
  // Each backend's own start (start_seconds) plus its warm begin
  // (warm_begin_seconds), when the results recorded them: in place of
  // start_s for that backend.
  std::map<std::string, double> start_by_backend;
};

// A step's key: its pass's name (bench::PassName) at repetition 0.
std::string StepKey(const Step& step);

// The calibration `results` (a results document read from `source`)
// gives a plan for `target`; nullopt when it is of another host.
std::optional<Calibration> CalibrationFrom(const nlohmann::json& results,
                                           const std::string& source,
                                           const CalibrationTarget& target);

// The newest (by flatbench.run_start) of `files` that is a results
// document of this host; files that are missing, not JSON or of another
// host are passed over.
std::optional<Calibration> NewestCalibration(
    const std::vector<std::string>& files, const CalibrationTarget& target);

// Where bench and gonogo leave results by default: every
// RESULTS_ROOT/*/bench.json (gonogo's timestamped folders) and every
// *.json beside `out` (bench --out), in name order.
std::vector<std::string> DefaultResultsFiles(const std::string& results_root,
                                             const std::string& out);

// `host` with the calibrated step costs and device in place of the
// model's: the depths measured as measured, the others scaled as the
// nearest depth measured differs from the model there.
HostCost Calibrated(const Calibration& c, HostCost host);

// Which figures `c` gives, in words, for the plan: "calibrated from F
// (run of T): device rates at depths 1, 8, 32; ...".
std::string Describe(const Calibration& c);

}  // namespace flatbench::bench
