#pragma once
// gonogo's run (gonogo_run.cc) and its bench phase (gonogo_bench.cc): the
// arguments, the phases run as child processes of this binary, the plan.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/child_process.h"
#include "bench/run_request.h"
#include "cli/bench_args.h"
#include "common/device_profile.h"
#include "dataset/spec.h"
#include "report/upkeep.h"

namespace flatbench::cli {

struct GonogoArgs {
  std::string scale = "smoke";
  uint64_t accounts = 0;
  uint32_t slots = 4;
  std::string dir;
  std::string out;
  std::string results_root = bench::kDefaultResultsRoot;
  // What the bench phase is asked for beyond gonogo's own choices
  // (BenchOf): backends (empty: gonogo's default), threads, eviction
  // (empty: gonogo's choice), reads, repetitions, thresholds, reference
  // rows, calibration and device profile.
  bench::RunRequest request;
  bool fresh = false;
  bool full_verify = false;
  bool plan_only = false;
  unsigned jobs = 0;  // gen --jobs; 0: the host's hardware threads.
  // "fresh": the bulk-loaded stores; "aged": then aged by `blocks` blocks
  // of the default stream (0: SteadyStateBlocks).
  std::string shape = "fresh";
  uint64_t blocks = 0;
  // The report's --drive-tbw (report/upkeep.h).
  double drive_tbw = report::kDefaultDriveTbw;
};

// Runs gen, (age,) verify and bench as child processes and the report in
// this process; returns the exit code (the verdict's, or the error's).
int RunGonogo(GonogoArgs a);

// gonogo --plan: what each backend and phase would cost; writes nothing.
int PrintGonogoPlan(const GonogoArgs& a, const dataset::Spec& spec,
                    const std::optional<DeviceProfileFile>& profile);

// The bench phase's request (gonogo --plan plans with it in this process;
// BenchCommandLine starts it).
bench::RunRequest BenchOf(const GonogoArgs& a, const std::string& out);

// How a phase's child process ended, as gonogo's exit code: 0; the error
// code its command documents (the child printed the message); or, for a
// signal or a code its command does not document (a sanitizer's 1 is
// neither NO-GO nor anything else), kChildFailed, printed here. A verdict
// never comes from a child: the report runs in this process.
int PhaseExit(const bench::ChildExit& end, const std::string& command,
              const std::string& phase);

}  // namespace flatbench::cli
