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
// The estimate is a per-pass cost model (EstimateStep): a cold pass pays
// an eviction, its device cell, an open (for a server backend, starting
// its server) and its reads at storage latency spread over the threads the
// device serves at once; a warm pass pays its reads at memory speed over
// the cores; a startup pass pays each probe's process start. Its figures
// (BackendCost) were measured on a 2-core VM with a virtio disk
// (RESEARCH.md, section 6); elsewhere it is a rough guide, and the run's
// progress lines correct it with the time actually spent.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/schedule.h"
#include "common/device_profile.h"
#include "dataset/spec.h"

namespace flatbench::bench {

// What one backend's passes cost, in seconds.
struct BackendCost {
  double open_s = 0.05;       // A cold open, read metadata loaded.
  double cold_read_s = 2e-4;  // One cold hit read at one thread.
  double cold_miss_s = 2e-4;  // One cold miss (a filter answers it fast).
  double warm_read_s = 4e-6;  // One warm read at one thread.
  double probe_s = 0.2;       // A startup probe: spawn, open, first read.
  double per_file_s = 2e-5;   // Per file: eviction by fadvise, residency.
};

// The figures for `backend` (a read variant "B+HOW" costs what B does);
// a backend the table does not know gets the slowest figures.
BackendCost CostOf(const std::string& backend);

// The mean latency of one 4 KiB read at queue depth 1 on the device where
// BackendCost's figures were measured (this project's 2-core VM, virtio
// disk: about 100 us, RESEARCH.md section 8).
inline constexpr double kCostDeviceLatencyS = 1e-4;

// The host's side of the model.
struct HostCost {
  double drop_caches_s = 0.4;  // One eviction through drop_caches.
  int device_parallelism = 4;  // Cold reads the device serves at once.
  int cores = 2;               // Warm reads served at once.
  // One 4 KiB read at depth 1. A cold figure of at least
  // kCostDeviceLatencyS holds one device read: it is priced at this
  // latency instead (AtDevice).
  double device_latency_s = kCostDeviceLatencyS;
};

// `figure` (a BackendCost cold read or miss) on `host`'s device.
double AtDevice(double figure, const HostCost& host);

// The host a device profile describes (`flatbench device --out`): its
// cores (the profile's cpus), its 4 KiB read latency at depth 1, and the
// reads it serves at once (the most 4 KiB reads per second at any depth
// the profile measured, times that latency), each measured on that host.
HostCost HostCostFromProfile(const DeviceProfile& profile, HostCost base);

// One backend's facts the plan needs.
struct BackendFacts {
  uint64_t disk_bytes = 0;
  uint64_t files = 0;
};

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
  HostCost host;
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
  double seconds = 0;                // The whole estimate.
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

// The estimated seconds of `step` of a backend with `facts`, and of
// holding a backend's files resident for warm mode (WarmBeginSeconds).
double EstimateStep(const Step& step, const BackendFacts& facts,
                    const BackendCost& cost, const HostCost& host,
                    bool drop_caches);
double WarmBeginSeconds(const BackendFacts& facts, const BackendCost& cost,
                        const dataset::Spec& spec);

// EstimateStep with `in`'s facts and costs, plus a warm startup step's
// warming again: what the progress lines' ETA sums.
double PlannedStepSeconds(const PlanInput& in, const Step& step);

// What is left of a run, for the progress lines: the steps' estimates
// scaled by how long the finished steps took against theirs. Only the
// steps' own seconds count, so work between steps (holding warm files,
// opening workers) does not inflate the scale; and the scale starts from
// the model (1) and moves to the measured ratio as estimated seconds are
// done, so the first short pass cannot swing the ETA by orders of magnitude.
class Eta {
 public:
  explicit Eta(std::vector<double> estimates);
  // Step `index` finished after `seconds` of its own.
  void Done(size_t index, double seconds);
  double Scale() const;
  double LeftSeconds() const;

 private:
  std::vector<double> each_;
  double total_ = 0, done_ = 0, measured_ = 0, left_ = 0;
};

// The plan as text: one line per backend and mode, the totals, the notes.
std::string FormatPlan(const Plan& plan);

// "7 min 40 s", "52 s", "2 h 05 min".
std::string FormatDuration(double seconds);

}  // namespace flatbench::bench
