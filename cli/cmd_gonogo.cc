// flatbench gonogo: the whole procedure in one command (gonogo_run.h):
// its options.
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
namespace {

// The options that shape the plan: --plan itself and gen's jobs (the host
// planned for and the calibration are bench's, AddRunOptions).
void AddPlanOptions(CLI::App* sub, GonogoArgs* a) {
  sub->add_flag("--plan", a->plan_only,
                "Print the plan (what gen would build, and bench's passes "
                "and estimated time per backend and mode) and exit 0 "
                "without running or writing anything");
  sub->add_option("--jobs", a->jobs,
                  "Jobs (threads) gen builds with, 1 to 1024 (default: the "
                  "host's hardware threads; with --plan --device-profile, "
                  "that host's cpus)")
      ->check(CLI::Range(1, 1024));
}

}  // namespace

Command AddGonogo(CLI::App& app) {
  auto a = std::make_shared<GonogoArgs>();
  CLI::App* sub = app.add_subcommand(
      "gonogo",
      "The whole procedure: gen, verify, bench (every mode, each backend in "
      "its own process) and report, with progress per phase. Resumes an "
      "interrupted run of the same scale and dataset without redoing "
      "finished phases. Checks free disk and RAM first. Exits with the "
      "verdict, computed in this process by the report phase.");
  sub->add_option("--scale", a->scale, "tiny, smoke, medium, full or custom")
      ->capture_default_str();
  sub->add_option("--accounts", a->accounts, "Accounts (--scale custom)");
  sub->add_option("--slots-per-account", a->slots,
                  "Slots per account (--scale custom)")
      ->capture_default_str();
  sub->add_option("--dir", a->dir, "Dataset directory (default data/SCALE)");
  sub->add_option("--out", a->out,
                  "Results directory (default RESULTS/SCALE-TIMESTAMP, or the "
                  "unfinished run being resumed)");
  sub->add_option("--results", a->results_root,
                  "Where timestamped results directories go")
      ->capture_default_str();
  // What the bench phase is asked for (BenchOf adds gonogo's own choices).
  AddRunOptions(sub, &a->request, RunCommand::kGonogo);
  sub->add_flag("--full-verify", a->full_verify,
                "Verify every pair of every backend against the generator "
                "(about 16 min at medium, 8 h at full) instead of the quick "
                "check (counts and sampled lookups)");
  sub->add_flag("--fresh", a->fresh,
                "Start a new results directory instead of resuming");
  AddPlanOptions(sub, a.get());
  sub->add_option("--shape", a->shape,
                  "fresh: the stores as bulk-loaded; aged: then aged by "
                  "--blocks blocks of the default stream through each "
                  "store's write path (flatbench age), in data/SCALE-aged "
                  "by default, so the verdict is for the shape a running "
                  "node's stores have")
      ->check(CLI::IsMember({"fresh", "aged"}))
      ->capture_default_str();
  sub->add_option("--blocks", a->blocks,
                  "Blocks for --shape aged (default: enough that every "
                  "store reaches its steady state, as age without --blocks; "
                  "2,000 changes a block)")
      ->check(AtLeastOne());
  AddDriveTbwOption(sub, &a->drive_tbw);
  return {sub, [a] { return RunGonogo(*a); }};
}

}  // namespace flatbench::cli
