#pragma once
// gonogo's run (gonogo_run.cc) and its bench phase (gonogo_bench.cc): the
// arguments, the phases run as child processes of this binary, the plan.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/child_process.h"
#include "cli/bench_args.h"
#include "common/device_profile.h"
#include "dataset/spec.h"

namespace flatbench::cli {

struct GonogoArgs {
  std::string scale = "smoke";
  uint64_t accounts = 0;
  uint32_t slots = 4;
  std::string dir;
  std::string out;
  std::string results_root = kDefaultResultsRoot;
  std::string calibration;  // bench --calibration; empty: its default.
  std::vector<std::string> backends;  // Empty: every one in this build.
  std::vector<int> threads;           // Empty: bench's default.
  std::string evict;
  std::string thresholds;
  uint64_t reads = 0;
  int repetitions = 0;
  bool fresh = false;
  bool full_verify = false;
  bool plan_only = false;
  bool full_reference = false;
  unsigned jobs = 0;  // gen --jobs; 0: the host's hardware threads.
  // "fresh": the bulk-loaded stores; "aged": then aged by `blocks` blocks
  // of the default stream (0: TenPercentBlocks).
  std::string shape = "fresh";
  uint64_t blocks = 0;
  std::string device_profile;  // bench --device-profile; --plan: that host.
};

// Runs gen, (age,) verify and bench as child processes and the report in
// this process; returns the exit code (the verdict's, or the error's).
int RunGonogo(GonogoArgs a);

// gonogo --plan: what each backend and phase would cost; writes nothing.
int PrintGonogoPlan(const GonogoArgs& a, const dataset::Spec& spec,
                    const std::optional<DeviceProfileFile>& profile);

// The bench phase's arguments, as bench parses them (gonogo --plan plans
// with them in this process), and as its command line (BenchArgv).
cli::BenchArgs BenchOf(const GonogoArgs& a, const std::string& out);
std::vector<std::string> BenchArgv(const cli::BenchArgs& b);

// How a phase's child process ended, as gonogo's exit code: 0; the error
// code its command documents (the child printed the message); or, for a
// signal or a code its command does not document (a sanitizer's 1 is
// neither NO-GO nor anything else), kChildFailed, printed here. A verdict
// never comes from a child: the report runs in this process.
int PhaseExit(const ChildExit& end, const std::string& command,
              const std::string& phase);

}  // namespace flatbench::cli
