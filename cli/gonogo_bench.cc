// gonogo's bench phase: its arguments and command line, and the plan of
// the whole run (gonogo --plan).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "backends/table.h"
#include "bench/child_process.h"
#include "bench/plan.h"
#include "cli/bench_parent.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "cli/gonogo_plan.h"
#include "cli/gonogo_run.h"
#include "cli/report_summary.h"
#include "cli/run_options.h"
#include "common/device_profile.h"
#include "common/files.h"
#include "common/stop_signals.h"
#include "common/text.h"
#include "datagen/dataset_dir.h"
#include "datagen/needs.h"
#include "dataset/estimate.h"
#include "dataset/names.h"
#include "report/document/report.h"
#include "report/thresholds.h"
#include "report/verdict/verdict.h"

namespace flatbench::cli {

int PhaseExit(const bench::ChildExit& end, const std::string& command,
              const std::string& phase) {
  Status st = bench::ChildStatus(end, command, phase);
  if (st.ok()) return 0;
  return st.code() == Code::kChildFailed ? Fail(st) : st.ExitCode();
}

bench::RunRequest BenchOf(const GonogoArgs& a, const std::string& out) {
  bench::RunRequest b = a.request;
  b.dir = a.dir;
  b.out = out;
  b.force = true;
  // Every kind: the point reads the verdict reads, and the scans and
  // startups the report shows beside them (never gated). Every mode: the
  // plan leaves out the warm passes of backends the host cannot hold.
  b.modes = {"warm", "cold", "cold-lazy"};
  b.kinds = {"hit", "miss-absent", "miss-live", "scan", "startup"};
  // Below the gate's scale, eviction per file (fadvise, verified with
  // mincore as always) rather than drop_caches, which also empties the
  // page cache of everything else on the host, every pass.
  if (b.evict.empty()) {
    auto t = b.thresholds.empty() ? report::BuiltInThresholds()
                                  : report::LoadThresholdsFile(b.thresholds);
    b.evict = t.ok() && t->gate_scale != a.scale ? "fadvise" : "auto";
  }
  b.results_root = a.results_root;
  return b;
}

int PrintGonogoPlan(const GonogoArgs& a, const dataset::Spec& spec,
                    const std::optional<DeviceProfileFile>& profile) {
  bench::RunRequest request = BenchOf(a, "-");
  const bool aged = a.shape == "aged";
  const int phases = aged ? 5 : 4;
  auto est = EstimateGonogo(spec, a.dir, request, a.jobs, profile);
  if (!est.ok()) return Fail(est.status().WithContext("gonogo --plan"));
  std::string todo;
  for (const auto& r : est->rows) {
    if (!r.in_run || r.built || r.disk == 0) continue;
    todo += (todo.empty() ? "" : ",") + r.backend;
  }
  std::fprintf(stderr, "gonogo plan (%s scale, dataset %s):\n%s",
               a.scale.c_str(), a.dir.c_str(),
               FormatGonogoEstimate(est.value()).c_str());
  std::fprintf(stderr, "  [1/%d] gen: %s\n", phases,
               todo.empty()
                   ? "every backend built already"
                   : (todo + " with " + std::to_string(est->jobs) +
                      (est->jobs == 1 ? " job" : " jobs") + ", about " +
                      bench::FormatDuration(est->gen_jobs) + " (estimate)")
                         .c_str());
  int phase = 1;
  if (aged) {
    double age = 0;
    for (const std::string& store : dataset::StoresOf(a.request.backends)) {
      age += dataset::EstimateAgeSeconds(
          spec, store, a.blocks, dataset::StreamSpec().changes_per_block,
          dataset::DefaultMergeEvery(spec, dataset::StreamSpec()),
          std::max(1u, est->jobs));
    }
    std::fprintf(stderr,
                 "  [%d/%d] age: %llu blocks through every store's write "
                 "path, about %s (estimate: each store's measured seconds "
                 "per block and the arena's merge rate, RESEARCH.md section "
                 "11)\n",
                 ++phase, phases, static_cast<unsigned long long>(a.blocks),
                 bench::FormatDuration(age).c_str());
    const dataset::StreamSpec stream;
    const uint64_t every = dataset::DefaultMergeEvery(spec, stream);
    const double delta =
        static_cast<double>(every) * dataset::LogicalBytesPerBlock(stream);
    std::fprintf(
        stderr,
        "        the arena merges every %llu blocks (%llu merges): its delta "
        "holds up to %s in memory and its log as much on disk, and each "
        "merge writes a new base beside the old one before the exchange, "
        "so the arena needs twice its size on disk while it merges\n",
        static_cast<unsigned long long>(every),
        static_cast<unsigned long long>((a.blocks + every - 1) / every),
        HumanBytes(static_cast<uint64_t>(delta)).c_str());
  }
  std::fprintf(stderr, "  [%d/%d] verify%s\n", ++phase, phases,
               a.full_verify ? " (every pair; RESEARCH.md, section 6)"
                             : " --quick: seconds");
  std::fprintf(stderr, "  [%d/%d] bench:\n", ++phase, phases);
  request.plan = true;
  if (Status st = RunParent(request, &spec); !st.ok()) {
    return Fail(st.WithContext("bench --plan"));
  }
  std::fprintf(stderr, "  [%d/%d] report: seconds\n", ++phase, phases);
  return 0;
}

}  // namespace flatbench::cli
