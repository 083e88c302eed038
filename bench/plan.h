#pragma once
// The run's plan: how much of the matrix each backend runs, what the host
// leaves out, and what it should cost. `bench` prints it before the first
// pass (and alone with --plan); `gonogo --plan` prints the same.
//
// A backend's share follows from its role and its cost, never from its
// name. At the gate's scale every backend runs the whole matrix. Below it
// (a run that cannot give a verdict):
//   gated      (the thresholds name it: the candidate and its baselines)
//              the gate mode's whole read matrix (point reads and
//              batches), tables x kinds x threads x every repetition; one
//              repetition of its scans and startup and of every cell of
//              the other modes.
//   reference  (any other backend, never in the verdict) one repetition of
//              the cells that fit in kReferenceTimeShare of a gated
//              backend's estimated time, taken in order: the gate mode
//              first, point reads before scans before startup, hits before
//              misses, fewer threads first. The plan names what is left
//              out. reference_full gives it the gated share instead.
// Warm mode holds every warm backend's files resident at once: backends
// are admitted, gated first, while their files fit the host's limit; the
// warm passes of the others are left out and the plan names them.
//
// The estimate is a per-step cost model (plan_cost.h): evictions, device
// cells, reads at the device's rate for their depth, opens and process
// starts, with the figures measured on this project's 2-core VM; a device
// profile gives another host's device and cores, and this host's last
// results calibrate the figures (plan_calibration.h). The run's progress
// lines correct it with the time actually spent (Eta).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/eta.h"
#include "bench/plan_calibration.h"
#include "bench/plan_cost.h"
#include "bench/schedule.h"
#include "dataset/spec.h"

namespace flatbench::bench {

struct PlanInput {
  dataset::Spec spec;
  ScheduleOptions schedule;        // The whole matrix, every backend.
  std::vector<std::string> gated;  // Backends the thresholds name.
  Mode gate_mode = Mode::kCold;    // The mode the verdict reads.
  bool gate_scale = false;         // The dataset is at the gate's scale.
  bool reference_full = false;     // Reference rows run the whole matrix.
  std::map<std::string, BackendFacts> facts;
  uint64_t warm_limit = 0;  // Bytes warm mode may hold; 0: no limit.
  bool drop_caches = true;  // Eviction through drop_caches (else fadvise).
  HostCost host;            // Calibrated already, when `calibration` is set.
  uint64_t check_samples = 10'000;  // Sanity-check keys per table and kind.
  // This host's last results (plan_calibration.h): their steps' measured
  // times stand in for the model's, when they are of the same run.
  std::optional<Calibration> calibration;
};

// Passes and estimated seconds of one backend in one mode.
struct PlanRow {
  std::string backend;
  std::string role;  // "gated" or "reference".
  Mode mode = Mode::kCold;
  uint64_t passes = 0;  // Measured passes (entries), device cells apart.
  uint64_t device_cells = 0;
  double seconds = 0;
};

struct Plan {
  ScheduleOptions schedule;          // With each backend's scope.
  std::vector<Phase> phases;         // The schedule itself.
  std::vector<PlanRow> rows;         // Backend x mode, in schedule order.
  std::vector<std::string> notes;    // What is left out, and why.
  std::vector<std::string> shares;   // Each backend's share, in words.
  std::vector<double> step_seconds;  // Per step, in run order.
  // Each backend's worker start and sanity check (StartSeconds, or the
  // calibration's), before the first step.
  std::map<std::string, double> start_seconds;
  size_t steps_measured = 0;  // Steps priced at a calibration's times.
  std::string calibration;    // Describe(), or empty: the model alone.
  double seconds = 0;         // The whole estimate, the starts included.
};

// Warm mode's hold: four fifths of the memory available beyond 1 GiB
// (`mem_available`, MemAvailableBytes), leaving the rest for the processes
// themselves; 0 when no more than 1 GiB is available.
uint64_t WarmHoldLimitBytes(uint64_t mem_available);

// Below the gate's scale a reference row's share is held to this fraction
// of a gated backend's mean estimated time.
inline constexpr double kReferenceTimeShare = 0.5;

// Decides every backend's scope and estimates the run. Errors: the
// schedule's (MakeSchedule).
Result<Plan> MakePlan(const PlanInput& input);

// The calibration's measured time of `step` when it has one; else
// EstimateStep with `in`'s facts and costs, plus a warm startup step's
// warming again: what the progress lines' ETA sums.
double PlannedStepSeconds(const PlanInput& in, const Step& step);

// The plan as text: one line per backend and mode, the workers' start,
// the totals, where the estimate's figures come from (EstimateSource), the
// notes.
std::string FormatPlan(const Plan& plan);
// "(the estimate: calibrated from ...; 40 of 72 steps at their measured
// times, ...)", or that it is the built-in model's.
std::string EstimateSource(const Plan& plan);

// "7 min 40 s", "52 s", "2 h 05 min".
std::string FormatDuration(double seconds);

}  // namespace flatbench::bench
