// flatbench sweep: datasets of increasing size, each built with `gen`,
// measured with `bench` (child processes of this binary: the commands'
// own code paths), its read geometry recorded, then removed; one
// DIR/sweep.json holds every size (bench/sweep.h).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>

#include "backends/table.h"
#include "bench/child_process.h"
#include "bench/plan.h"
#include "bench/sweep.h"
#include "cli/bench_args.h"
#include "cli/bench_parent.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "cli/run_options.h"
#include "cli/test_hooks.h"
#include "common/files.h"
#include "common/results_schema.h"
#include "common/stop_signals.h"
#include "datagen/dataset_dir.h"
#include "dataset/names.h"

namespace flatbench::cli {
namespace {

// The bench every size runs: the gate's mode only, every gated cell, the
// same schedule and gates as `bench --modes cold`; its other values are
// the sweep's defaults of the options it shares with bench.
bench::RunRequest SweepBench() {
  bench::RunRequest r;
  r.modes = {std::string(results::kModeCold)};
  r.threads = {1, 8, 32};
  r.evict = "auto";
  r.reads = 20'000;
  r.repetitions = 5;
  return r;
}

struct SweepArgs {
  std::string accounts = "1000000,3000000,10000000";
  uint32_t slots = 4;
  std::string dir;
  // bench's options (AddRunOptions): the backends asked for (empty: the
  // default, SweepBackends), the matrix and eviction, no device, quiet.
  bench::RunRequest request = SweepBench();
  double device_seconds = 60;
  bool keep = false;
  double max_hours = 24;
  unsigned jobs = 0;  // gen --jobs; 0: gen's default.
  bool plan_only = false;
};

// The request of every size's bench but its dataset, results file and
// backends: the part sweep.json records (its bench_args).
bench::RunRequest SizeBench(const SweepArgs& a) {
  bench::RunRequest r = a.request;
  r.backends.clear();
  r.quiet = false;
  return r;
}

Status ParseAccounts(const std::string& csv, std::vector<uint64_t>* out) {
  std::stringstream ss(csv);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty() || item.size() > 12 ||
        item.find_first_not_of("0123456789") != std::string::npos) {
      return Status::Usage("--accounts: '" + item + "' is not a count");
    }
    const uint64_t v = std::stoull(item);
    if (v < 1000) {
      return Status::Usage("--accounts: " + item +
                           " is below 1000 accounts, too few to measure");
    }
    if (!out->empty() && v <= out->back()) {
      return Status::Usage("--accounts: sizes must be ascending (" + item +
                           " after " + std::to_string(out->back()) + ")");
    }
    out->push_back(v);
  }
  if (out->size() < 2) {
    return Status::Usage("--accounts: a sweep needs at least two sizes");
  }
  return Status::Ok();
}

// Where the sweep builds the dataset of a size (bench/sweep.cc's layout).
std::string SizeDir(const std::string& dir, uint64_t accounts) {
  return dir + "/data-" + std::to_string(accounts);
}

dataset::Spec SizeSpec(uint64_t accounts, uint32_t slots) {
  dataset::Spec s;
  s.scale = "custom";
  s.accounts = accounts;
  s.slots_per_account = slots;
  s.seed = dataset::kDefaultSeed;
  return s;
}

// Every store of the sweep at every size, before the first is built: one
// above its store's size limit (the backends table's max_pairs, such as the
// fs store's one file per key) is a usage error (64) naming the store and
// the size; one whose filesystem check refuses keeps that check's code.
Status CheckEverySize(const std::vector<std::string>& stores,
                      const std::vector<uint64_t>& sizes, uint32_t slots,
                      const std::string& dir) {
  for (uint64_t accounts : sizes) {
    const dataset::Spec spec = SizeSpec(accounts, slots);
    const std::string size = std::to_string(accounts) + " accounts x " +
                             std::to_string(slots) + " slots";
    for (const auto& name : stores) {
      const backends::Entry* e = backends::Find(name);
      const uint64_t pairs = spec.accounts + spec.storage_slots();
      if (e != nullptr && e->max_pairs != 0 && pairs > e->max_pairs) {
        return Status::Usage(
            "--backends " + name + ": built only up to " +
            std::to_string(e->max_pairs) + " pairs, and the sweep's size " +
            size + " has " + std::to_string(pairs) + "; leave " + name +
            " out or keep --accounts at or below " +
            std::to_string(e->max_pairs / (1 + uint64_t{slots})) +
            " (refused before anything is built)");
      }
      if (Status st = backends::CheckBuildable(name, spec, dir); !st.ok()) {
        return st.WithContext("sweep size " + size);
      }
    }
  }
  return Status::Ok();
}

// The backends measured: those asked, or by default the stores buildable
// at every size (those the largest size admits) and the read variants the
// table measures by default of a store among them (arena+cache): the
// prediction for a fast device depends on the read path's CPU per read.
std::vector<std::string> SweepBackends(const SweepArgs& a,
                                       uint64_t largest_accounts) {
  if (!a.request.backends.empty()) return a.request.backends;
  std::vector<std::string> out =
      backends::DefaultStores(SizeSpec(largest_accounts, a.slots));
  for (std::string& v : backends::DefaultVariants()) {
    if (std::find(out.begin(), out.end(), dataset::StoreOf(v)) != out.end()) {
      out.push_back(std::move(v));
    }
  }
  return out;
}

// The estimate of the plan bench makes for one size's dataset, before it
// is built: the sweep's bench flags on gen's size estimates.
Result<double> BenchSeconds(const SweepArgs& a,
                            const std::vector<std::string>& measured,
                            const dataset::Spec& spec) {
  bench::RunRequest b = SizeBench(a);
  b.dir = SizeDir(a.dir, spec.accounts);
  // Where the sweep's bench writes it: the sizes measured before, beside
  // it, calibrate the plan.
  b.out = a.dir + "/bench-" + std::to_string(spec.accounts) + ".json";
  b.backends = measured;
  bench::RunParameters params = MakeParameters(b, spec);
  params.schedule.backends = measured;
  FLATBENCH_ASSIGN_OR_RETURN(auto in,
                             PlanInputFor(b, spec, nullptr, params, 0));
  FLATBENCH_ASSIGN_OR_RETURN(const bench::Plan plan, bench::MakePlan(in));
  return plan.seconds;
}

// Builds, measures and profiles through child processes of this binary.
bench::SweepSteps ChildSteps(const SweepArgs& a, const bench::SweepPlan& plan,
                             const std::string& names,
                             const std::vector<std::string>& measured) {
  bench::SweepSteps steps;
  // How a step's child ended: ok, the error its command documents (it has
  // printed the message), or kChildFailed for a crash (common/
  // child_process.h). A child that could not be started or waited for is
  // an I/O error (74).
  auto spawn = [](const std::vector<std::string>& args) -> Status {
    FLATBENCH_ASSIGN_OR_RETURN(const bench::ChildExit end,
                               bench::SpawnSelf(args));
    return bench::ChildStatus(end, args[0], args[0]);
  };
  steps.generate = [a, names, spawn](const dataset::Spec& spec,
                                     const std::string& dir) {
    std::vector<std::string> args = {"gen",
                                     "--scale",
                                     "custom",
                                     "--accounts",
                                     std::to_string(spec.accounts),
                                     "--slots-per-account",
                                     std::to_string(spec.slots_per_account),
                                     "--dir",
                                     dir,
                                     "--backends",
                                     names};
    if (a.jobs != 0)
      args.insert(args.end(), {"--jobs", std::to_string(a.jobs)});
    return spawn(args);
  };
  steps.bench = [a, measured, spawn](const std::string& dir,
                                     const std::string& out) {
    bench::RunRequest r = SizeBench(a);
    r.dir = dir;
    r.backends = measured;
    r.out = out;
    r.force = true;
    r.quiet = a.request.quiet;
    return spawn(BenchCommandLine(r));
  };
  steps.profile = [a, plan, spawn]() -> Result<nlohmann::json> {
    const std::string out = plan.dir + "/device-profile.json";
    std::vector<std::string> args = {
        "device", "--dir",   plan.dir,    "--out",
        out,      "--force", "--seconds", std::to_string(a.device_seconds)};
    if (a.request.quiet) args.push_back("--quiet");
    FLATBENCH_RETURN_IF_ERROR(spawn(args));
    FLATBENCH_ASSIGN_OR_RETURN(auto text, ReadSmallFile(out));
    nlohmann::json d = nlohmann::json::parse(text, nullptr, false);
    if (d.is_discarded() || !d.is_object()) {
      return Status::Corruption(out + ": not JSON");
    }
    return d;
  };
  steps.open =
      [](const std::string& dir,
         const std::string& backend) -> Result<std::unique_ptr<Backend>> {
    FLATBENCH_ASSIGN_OR_RETURN(auto ds, datagen::Dataset::Open(dir));
    return backends::Open(backend, ds.BackendDir(backend), {});
  };
  if (const uint64_t stop = StopAfterGenHook(); stop != 0) {
    steps.after_generate = [stop](uint64_t accounts) {
      return accounts != stop;
    };
  }
  return steps;
}

void PrintPlan(const SweepArgs& a, const std::vector<std::string>& stores,
               const std::string& bench_names) {
  std::string left_out;
  for (const auto& s : backends::Stores()) {
    if (std::find(stores.begin(), stores.end(), s) == stores.end()) {
      left_out += (left_out.empty() ? "" : ", ") + s;
    }
  }
  std::fprintf(stderr,
               "sweep plan: sizes %s accounts x %u slots; backends %s%s\n",
               a.accounts.c_str(), a.slots, bench_names.c_str(),
               left_out.empty() || !a.request.backends.empty()
                   ? ""
                   : (" (left out: " + left_out +
                      ", not buildable at every size or not asked)")
                         .c_str());
}

int RunSweepCommand(const SweepArgs& a) {
  InstallStopHandler("sweep", StopRole::kParent);
  bench::SweepPlan plan;
  if (Status st = ParseAccounts(a.accounts, &plan.accounts); !st.ok()) {
    return Fail(st);
  }
  const std::vector<std::string> asked = SweepBackends(a, plan.accounts.back());
  // Read variants ("arena+cache") read their store's files: it is built
  // (and its geometry recorded) even when only the variant was asked for.
  const std::vector<std::string> stores = dataset::StoresOf(asked);
  std::vector<std::string> variants;
  for (const auto& b : asked) {
    if (dataset::StoreOf(b) != b) variants.push_back(b);
  }
  std::vector<std::string> measured = stores;
  measured.insert(measured.end(), variants.begin(), variants.end());
  const std::string bench_names = Join(measured);
  plan.dir = a.dir;
  plan.slots_per_account = a.slots;
  plan.backends = stores;
  plan.read_variants = variants;
  plan.keep = a.keep;
  plan.progress = !a.request.quiet;
  plan.max_hours = a.max_hours;
  plan.device_profile = !a.request.no_device;
  plan.jobs = a.jobs;
  if (Status st = CheckEverySize(stores, plan.accounts, a.slots, a.dir);
      !st.ok()) {
    return Fail(st);
  }
  plan.bench_args = RequestArgs(SizeBench(a));
  Status priced;
  bench::SweepNeeds needs =
      bench::EstimateSweep(plan, [&](const dataset::Spec& spec) {
        auto s = BenchSeconds(a, measured, spec);
        if (!s.ok() && priced.ok()) priced = s.status();
        return s.ok() ? s.value() : 0.0;
      });
  if (!priced.ok()) return Fail(priced);
  // The device profile: its reads, and writing its scratch file.
  if (plan.device_profile) needs.bench_seconds += a.device_seconds + 10;
  if (a.plan_only || !a.request.quiet) PrintPlan(a, stores, bench_names);
  if (Status st = bench::CheckSweepFits(plan, needs); !st.ok()) {
    return Fail(st);
  }
  if (a.plan_only) return 0;
  Status st =
      bench::RunSweep(plan, ChildSteps(a, plan, Join(stores), measured));
  if (StopSignal() != 0) {
    std::fprintf(stderr,
                 "sweep: stopped by %s%s%s; every process it started is "
                 "stopped. To resume, run the same command again: the sizes "
                 "measured are kept and skipped, the one it stopped in is "
                 "built (gen resumes per backend) and measured again.\n",
                 DescribeSignal(StopSignal()).c_str(), st.ok() ? "" : " ",
                 st.ok() ? "" : ("in " + st.message()).c_str());
    return ExitCodeForSignal(StopSignal());
  }
  if (!st.ok()) return Fail(st);
  return 0;
}

constexpr char kSweepHelp[] =
    "A scale sweep, the evidence for a full-scale prediction: first the "
    "device profile of DIR (flatbench device, --device-seconds), then for "
    "each size "
    "in --accounts (ascending), builds the dataset (gen, custom scale, "
    "--slots-per-account slots each) in DIR/data-N, measures it with bench "
    "in the gate's mode (cold: every gated cell, the same schedule and "
    "gates as `bench --modes cold`), records each backend's read geometry "
    "(index, filter and data bytes, tree depth, from the backend's own "
    "metadata), then removes the dataset unless --keep. Everything goes "
    "into DIR/sweep.json (bench/SWEEP_FORMAT.md), which is also the state: "
    "a rerun with the same flags skips measured sizes and rebuilds an "
    "interrupted one (gen resumes per backend). Only datasets the sweep "
    "created are removed. By default it measures the stores buildable at "
    "every size (the fs store only up to its limit) and the arena's cached "
    "read path (arena+cache), whose CPU per read the prediction for a fast "
    "device depends on; a backend named in "
    "--backends that some size is above the limit of is refused (exit 64, "
    "naming it and the size) before the first size. Before anything is "
    "written, the plan's disk "
    "(the largest size's backends, or every size with --keep), RAM and "
    "estimated time are checked; a plan that does not fit is refused with "
    "the figures (exit 73). Then `flatbench report DIR/sweep.json --out R` "
    "writes the prediction report: predicted, not a verdict. The plan's "
    "time is gen's estimate and each size's bench plan (bench --plan), "
    "calibrated by this host's last results when there are some.";

}  // namespace

Command AddSweep(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  CLI::App* sub = app.add_subcommand("sweep", kSweepHelp);
  sub->add_option("--accounts", a->accounts,
                  "Comma-separated account counts, ascending, at least two")
      ->capture_default_str();
  sub->add_option("--slots-per-account", a->slots, "Storage slots per account")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  sub->add_option("--dir", a->dir,
                  "Sweep directory: sweep.json, the datasets, bench files")
      ->required();
  AddRunOptions(sub, &a->request, RunCommand::kSweep);
  sub->add_option("--device-seconds", a->device_seconds,
                  "Measuring time of the device profile (flatbench device "
                  "--seconds), run once before the first size")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 86400.0));
  sub->add_flag("--keep", a->keep, "Keep each dataset after measuring it");
  sub->add_option("--max-hours", a->max_hours,
                  "Refuse a plan estimated to take longer")
      ->capture_default_str();
  sub->add_option("--jobs", a->jobs,
                  "Jobs gen builds each size with, 1 to 1024 (gen --jobs; "
                  "default: the host's hardware threads)")
      ->check(CLI::Range(1, 1024));
  sub->add_flag("--plan", a->plan_only,
                "Print the plan (sizes, backends, disk, RAM and time) after "
                "the up-front checks, and exit (0 when the sweep would "
                "start) without writing anything");
  return {sub, [a] { return RunSweepCommand(*a); }};
}

}  // namespace flatbench::cli
