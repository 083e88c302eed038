// flatbench bench: the point-read matrix, each backend in its own worker
// process, driven through one interleaved schedule (bench/run.h), written
// as one google-benchmark JSON file. Over 300 lines because one binary
// plays the command's three roles (the parent, a backend's worker and a
// startup probe) from one set of arguments.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "bench/page_cache.h"
#include "bench/pass.h"
#include "bench/plan.h"
#include "bench/results.h"
#include "bench/run.h"
#include "bench/startup.h"
#include "bench/worker.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "cli/subprocess.h"
#include "common/device_profile.h"
#include "common/files.h"
#include "common/hex.h"
#include "common/results_schema.h"
#include "common/stop_signals.h"
#include "datagen/dataset.h"
#include "datagen/estimate.h"
#include "datagen/registry.h"
#include "flatbench_config.h"
#include "report/thresholds.h"
#if FLATBENCH_HAVE_ROCKSDB
#include <rocksdb/version.h>
#endif
#if FLATBENCH_HAVE_LMDB
#include <lmdb.h>
#endif

namespace flatbench::cli {
namespace {

struct BenchArgs {
  std::string dir, out;
  std::vector<std::string> backends;  // Empty: every one the dataset holds.
  std::vector<std::string> modes = {"warm", "cold", "cold-lazy"};
  std::vector<std::string> tables = {"account", "storage"};
  std::vector<std::string> kinds = {"hit", "miss-absent", "miss-live"};
  std::vector<int> threads = {bench::kDefaultThreads.begin(),
                              bench::kDefaultThreads.end()};
  uint64_t reads = 0;         // 0: bench::DefaultReadsPerPass(scale).
  int repetitions = 0;        // 0: 3 at smoke and below, 5 above.
  uint64_t device_reads = 0;  // 0: as many as --reads.
  bool no_device = false;
  std::string device_profile;  // Recorded in the results' context.
  std::string evict = "auto";
  bool force = false;
  uint64_t check_samples = 10'000;
  uint64_t cache_mib = 1024;
  uint32_t scan_length = bench::kDefaultScanLength;
  uint64_t scans = 0;  // 0: a tenth of --reads.
  uint64_t startup_probes = bench::kDefaultStartupProbes;
  bool quiet = false;
  bool plan_only = false;       // --plan: print the plan, run nothing.
  bool full_reference = false;  // Reference rows run the whole matrix.
  std::string thresholds;       // Which backends are gated.
  // Hidden (gonogo --plan): plan a dataset of this scale not built yet.
  std::string plan_scale;
  uint64_t plan_accounts = 0;
  uint32_t plan_slots = 4;
  // Hidden: be one backend's worker, answering requests on stdin.
  std::string worker;
  uint64_t run_origin_ns = 0;
  // Hidden: be a startup probe of this backend (bench/startup.h).
  std::string startup_probe, probe_key;
  bool probe_lazy = false;
  // Hidden test hook: the sanity check must then fail (exit 65).
  bool corrupt_expectations = false;
};

std::vector<std::string> ModeNames() {
  std::vector<std::string> v;
  for (auto m :
       {bench::Mode::kWarm, bench::Mode::kCold, bench::Mode::kColdLazy}) {
    v.push_back(bench::ModeName(m));
  }
  return v;
}

std::vector<std::string> KindNames() {
  std::vector<std::string> v;
  for (auto k : {datagen::KeyKind::kHit, datagen::KeyKind::kMissAbsent,
                 datagen::KeyKind::kMissLiveAccount}) {
    v.push_back(datagen::KeyKindName(k));
  }
  v.insert(v.end(), {"scan", "startup"});  // The operations.
  return v;
}

// Names in a list flag were checked by CLI11 as it parsed (IsMember), so
// `parse` cannot fail here.
template <typename T, typename ParseFn>
std::vector<T> Parsed(const std::vector<std::string>& names, ParseFn parse) {
  std::vector<T> out(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    [[maybe_unused]] bool known = parse(names[i], &out[i]);
    assert(known);
  }
  return out;
}

bench::RunParameters MakeParameters(const BenchArgs& a,
                                    const datagen::Spec& spec) {
  bench::RunParameters p;
  bench::ScheduleOptions& o = p.schedule;
  o.modes = Parsed<bench::Mode>(a.modes, [](std::string_view s, auto* m) {
    return bench::ParseMode(s, m);
  });
  o.tables = Parsed<Table>(
      a.tables, [](std::string_view s, auto* t) { return ParseTable(s, t); });
  // CLI11 checked each name (IsMember) and refused repeats.
  [[maybe_unused]] Status kinds = bench::ParseKinds(a.kinds, &o);
  assert(kinds.ok());
  o.scan_length = a.scan_length;
  o.scans_per_pass = a.scans;
  o.startup_probes = a.startup_probes;
  o.threads = a.threads;
  const uint64_t reads =
      a.reads > 0 ? a.reads : bench::DefaultReadsPerPass(spec.scale);
  o.reads_per_pass = reads;
  o.device_reads = a.no_device          ? 0
                   : a.device_reads > 0 ? a.device_reads
                                        : reads;
  o.repetitions =
      a.repetitions > 0 ? a.repetitions : bench::DefaultRepetitions(spec.scale);
  o.draw_seed = bench::kDefaultDrawSeed;
  p.evict = a.evict == "fadvise" ||
                    (a.evict == "auto" && !bench::DropCachesWritable())
                ? "fadvise"
                : "drop_caches";
  return p;
}

bench::Opener MakeOpener(const datagen::Dataset& ds) {
  return [ds](const std::string& name, const OpenOptions& options) {
    return datagen::OpenBackend(name, ds.BackendDir(name), options);
  };
}

bench::Versions LibraryVersions() {
  bench::Versions v;
#if FLATBENCH_HAVE_ROCKSDB
  v.rocksdb = std::to_string(ROCKSDB_MAJOR) + "." +
              std::to_string(ROCKSDB_MINOR) + "." +
              std::to_string(ROCKSDB_PATCH);
#endif
#if FLATBENCH_HAVE_LMDB
  v.lmdb = mdb_version(nullptr, nullptr, nullptr);
#endif
  return v;
}

// Worker process: one backend, answering the parent's requests line by line
// on stdin/stdout until stdin closes.
int RunWorker(const BenchArgs& a) {
  // A stop signal (the parent's SIGTERM) ends its probes and stops a server
  // its backend started before the worker exits.
  InstallStopHandler("bench worker " + a.worker, StopRole::kLeaf);
  FILE* out = TakeResponseStream();
  if (out == nullptr) return Fail(Status::FromErrno("worker: stdout"));
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  bench::WorkerOptions o;
  o.lazy_needed =
      std::find(a.modes.begin(), a.modes.end(), "cold-lazy") != a.modes.end();
  o.allow_drop_caches = a.evict == "drop_caches";
  o.run_origin_ns = a.run_origin_ns;
  o.check.samples = a.check_samples;
  o.check.corrupt_expectations = a.corrupt_expectations;
  o.cache_bytes = a.cache_mib << 20;
  o.probe_command = {"/proc/self/exe", "bench", "--startup-probe", a.worker,
                     "--dir",          a.dir,   "--out",           "-"};
  bench::Worker worker(ds.value(), a.worker, MakeOpener(ds.value()), o);
  char* buf = nullptr;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&buf, &cap, stdin)) > 0) {
    nlohmann::json req = nlohmann::json::parse(
        std::string(buf, static_cast<size_t>(n)), nullptr, false);
    nlohmann::json resp =
        req.is_discarded()
            ? nlohmann::json{{"ok", false},
                             {"code", static_cast<int>(Code::kUsage)},
                             {"error", "worker: a request that is not JSON"}}
            : worker.Handle(req);
    std::fputs(resp.dump().c_str(), out);
    std::fputc('\n', out);
    std::fflush(out);
  }
  std::free(buf);
  return 0;
}

// Startup probe process: open, one hit read, one JSON line on stdout.
int RunProbe(const BenchArgs& a) {
  auto ds = datagen::Dataset::Open(a.dir);
  if (!ds.ok()) return Fail(ds.status());
  std::string key;
  if (!FromHex(a.probe_key, &key) || key.size() != kAccountKeySize) {
    return Fail(Status::Usage("--probe-key: not a " +
                              std::to_string(kAccountKeySize) +
                              "-byte hex account key"));
  }
  OpenOptions options;
  options.lazy_metadata = a.probe_lazy;
  options.verify_checksums = true;
  nlohmann::json r = bench::RunStartupProbe(
      MakeOpener(ds.value()), a.startup_probe, Table::kAccount, key, options);
  std::printf("%s\n", r.dump().c_str());
  std::fflush(stdout);
  return ExitCodeOf(bench::ResponseStatus(r));
}

// The parent's end of a worker process.
class ProcessChannel : public bench::WorkerChannel {
 public:
  explicit ProcessChannel(std::unique_ptr<LineChild> child)
      : child_(std::move(child)) {}
  Result<nlohmann::json> Call(const nlohmann::json& request) override {
    FLATBENCH_ASSIGN_OR_RETURN(const std::string line,
                               child_->Exchange(request.dump()));
    nlohmann::json r = nlohmann::json::parse(line, nullptr, false);
    if (r.is_discarded()) {
      return Status::IOError("worker: a response that is not JSON: " +
                             line.substr(0, 200));
    }
    return r;
  }

 private:
  std::unique_ptr<LineChild> child_;
};

std::vector<std::string> WorkerArgs(const BenchArgs& a, const std::string& b,
                                    const std::string& evict, uint64_t origin) {
  std::vector<std::string> v = {"bench",
                                "--worker",
                                b,
                                "--dir",
                                a.dir,
                                "--out",
                                "-",
                                "--modes",
                                JoinCsv(a.modes),
                                "--evict",
                                evict,
                                "--check-samples",
                                std::to_string(a.check_samples),
                                "--cache-mib",
                                std::to_string(a.cache_mib),
                                "--run-origin",
                                std::to_string(origin)};
  if (a.corrupt_expectations) v.push_back("--corrupt-expectations");
  return v;
}

// The plan's view of the run: every backend's role (from the thresholds),
// its files, and what the host can hold warm.
// `ds` null: the dataset is not built yet (gonogo --plan before gen), and
// each backend's size is gen's estimate.
Result<bench::PlanInput> PlanInputFor(const BenchArgs& a,
                                      const datagen::Spec& spec,
                                      const datagen::Dataset* ds,
                                      const bench::RunParameters& params,
                                      uint64_t warm_limit) {
  FLATBENCH_ASSIGN_OR_RETURN(
      auto t, a.thresholds.empty() ? report::BuiltInThresholds()
                                   : report::LoadThresholdsFile(a.thresholds));
  bench::PlanInput in;
  in.spec = spec;
  in.schedule = params.schedule;
  in.gated = t.Backends();
  // A gated backend's read variants are judged by the same thresholds
  // (README, "The verdict"), so they run the gated schedule too.
  for (const auto& b : params.schedule.backends) {
    const std::string base = datagen::StorageBackend(b);
    if (base != b &&
        std::find(in.gated.begin(), in.gated.end(), base) != in.gated.end()) {
      in.gated.push_back(b);
    }
  }
  in.gate_scale = spec.scale == t.gate_scale;
  if (!bench::ParseMode(t.gate_mode, &in.gate_mode)) {
    return Status::Corruption(t.source + ": gate mode '" + t.gate_mode +
                              "' is not a bench mode");
  }
  in.reference_full = a.full_reference;
  in.warm_limit = warm_limit;
  in.drop_caches = params.evict == "drop_caches";
  in.host.cores =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (const auto& b : params.schedule.backends) {
    bench::BackendFacts f;
    if (ds == nullptr) {
      f.disk_bytes = datagen::EstimateDiskBytes(spec, b.substr(0, b.find('+')));
    } else {
      // One walk for both figures: the fs store holds a file per key.
      std::error_code ec;
      for (auto it = std::filesystem::recursive_directory_iterator(
               ds->BackendDir(b), ec);
           !ec && it != std::filesystem::recursive_directory_iterator();
           it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        ++f.files;
        f.disk_bytes += it->file_size(ec);
      }
    }
    in.facts[b] = f;
  }
  return in;
}

void PrintPlan(const BenchArgs& a, const datagen::Spec& spec,
               const bench::RunParameters& p, const bench::Plan& plan) {
  const auto& o = p.schedule;
  std::string modes, threads;
  for (auto m : o.modes) {
    if (!modes.empty()) modes += ',';
    modes += bench::ModeName(m);
  }
  for (int t : o.threads) {
    if (!threads.empty()) threads += ',';
    threads += std::to_string(t);
  }
  std::fprintf(stderr,
               "bench plan: %s (%s scale), %zu backends, %llu reads per "
               "pass, %d repetitions, threads %s, modes %s, eviction by %s\n%s",
               a.dir.c_str(), spec.scale.c_str(), o.backends.size(),
               static_cast<unsigned long long>(o.reads_per_pass), o.repetitions,
               threads.c_str(), modes.c_str(), p.evict.c_str(),
               bench::FormatPlan(plan).c_str());
}

// Where the run stopped and what a rerun does.
int Stopped(const BenchArgs& a, const Status& where) {
  std::fprintf(stderr,
               "bench: %s; every worker and server it started is stopped, "
               "%s not written. To resume, run the same command again: "
               "bench measures its whole matrix again.\n",
               where.ok()
                   ? ("stopped by " + DescribeSignal(StopSignal())).c_str()
                   : where.message().c_str(),
               a.out.c_str());
  return ExitCodeForSignal(StopSignal());
}

// --plan for a dataset not built yet (gonogo --plan): its spec from
// --plan-scale, the backends given, each backend's size estimated.
Status PlanUnbuilt(const BenchArgs& a) {
  FLATBENCH_ASSIGN_OR_RETURN(
      const datagen::Spec spec,
      datagen::MakeSpec(a.plan_scale, a.plan_accounts, a.plan_slots,
                        datagen::kDefaultSeed));
  if (a.backends.empty()) {
    return Status::Usage("--plan-scale: needs --backends");
  }
  bench::RunParameters params = MakeParameters(a, spec);
  params.schedule.backends = a.backends;
  for (const auto& b : a.backends) {
    if (b.size() > 7 && b.compare(b.size() - 7, 7, "+direct") == 0) {
      params.schedule.no_warm.push_back(b);
    }
  }
  const uint64_t warm_limit =
      datagen::WarmHoldLimitBytes(datagen::MemAvailableBytes());
  FLATBENCH_ASSIGN_OR_RETURN(
      auto in, PlanInputFor(a, spec, nullptr, params, warm_limit));
  FLATBENCH_ASSIGN_OR_RETURN(const bench::Plan plan, bench::MakePlan(in));
  std::fprintf(stderr,
               "bench plan: %s is not built yet; sizes are gen's estimates "
               "and per-file costs are left out\n",
               a.dir.c_str());
  PrintPlan(a, spec, params, plan);
  return Status::Ok();
}

Status RunParent(const BenchArgs& a) {
  // A bad profile is refused before anything runs.
  nlohmann::json profile;
  if (!a.device_profile.empty()) {
    FLATBENCH_ASSIGN_OR_RETURN(auto loaded,
                               LoadDeviceProfileFile(a.device_profile));
    profile = std::move(loaded.doc);
  }
  auto opened = datagen::Dataset::Open(a.dir);
  if (a.plan_only && !a.plan_scale.empty() &&
      (!opened.ok() || opened->CompleteBackends().size() < a.backends.size())) {
    return PlanUnbuilt(a);
  }
  FLATBENCH_ASSIGN_OR_RETURN(const datagen::Dataset ds, std::move(opened));
  std::vector<std::string> backends = a.backends;
  if (backends.empty()) {
    // Default: every backend this build has that the dataset holds.
    for (const auto& b : ds.CompleteBackends()) {
      for (const auto& known : datagen::AvailableBackends()) {
        if (b == known) backends.push_back(b);
      }
    }
    if (backends.empty()) {
      return Status::MissingInput("--dir: " + a.dir +
                                  " holds no complete backend");
    }
  }
  bench::RunParameters params = MakeParameters(a, ds.spec());
  params.schedule.backends = backends;
  for (const auto& b : backends) {
    if (b.size() > 7 && b.compare(b.size() - 7, 7, "+direct") == 0) {
      params.schedule.no_warm.push_back(b);
    }
    if (!ds.Build(b).ok()) {
      return Status::MissingInput("--backends: '" + b +
                                  "' is not built in dataset " + a.dir +
                                  " (run flatbench gen --backends " + b + ")");
    }
  }
  const uint64_t warm_limit =
      datagen::WarmHoldLimitBytes(datagen::MemAvailableBytes());
  FLATBENCH_ASSIGN_OR_RETURN(
      const bench::PlanInput plan_input,
      PlanInputFor(a, ds.spec(), &ds, params, warm_limit));
  FLATBENCH_ASSIGN_OR_RETURN(const bench::Plan plan,
                             bench::MakePlan(plan_input));
  params.schedule = plan.schedule;
  if (!a.quiet || a.plan_only) PrintPlan(a, ds.spec(), params, plan);
  if (a.plan_only) return Status::Ok();
  struct stat sb {};
  if (!a.force && stat(a.out.c_str(), &sb) == 0) {
    return Status::RefuseOverwrite(
        "--out: " + a.out + " already exists (pass --force to replace it)");
  }
  nlohmann::json run_context = bench::RunContext(ds, params, LibraryVersions());
  if (!profile.is_null()) {
    run_context[std::string(results::kRecordedDeviceProfile.name)] = profile;
  }

  const uint64_t origin = bench::NowNs();
  std::vector<std::unique_ptr<ProcessChannel>> owned;
  std::map<std::string, bench::WorkerChannel*> channels;
  for (const auto& b : backends) {
    auto child = LineChild::Start(WorkerArgs(a, b, params.evict, origin));
    if (!child.ok()) return child.status().WithContext(b);
    owned.push_back(std::make_unique<ProcessChannel>(std::move(child).value()));
    channels[b] = owned.back().get();
  }
  bench::RunOptions ro;
  ro.schedule = params.schedule;
  ro.progress = !a.quiet;
  ro.warm_memory_limit = warm_limit;
  ro.estimate = [&plan_input](const bench::Step& s) {
    return bench::PlannedStepSeconds(plan_input, s);
  };
  ro.stop_signal = [] { return StopSignal(); };
  if (const char* hold = std::getenv("FLATBENCH_TEST_HOLD_AFTER_PASS")) {
    ro.hold_after_pass = std::strtoull(hold, nullptr, 10);
  }
  if (!a.quiet) {
    std::fprintf(stderr,
                 "bench: %zu backends, each in its own process, "
                 "interleaved\n",
                 backends.size());
  }
  auto outcome = bench::RunMatrix(ds, ro, channels, run_context);
  owned.clear();  // Ends the workers (a stop signal already has).
  if (StopSignal() != 0) {
    return outcome.ok()
               ? Status::IOError("stopped by " + DescribeSignal(StopSignal()))
               : outcome.status();
  }
  if (!outcome.ok()) return outcome.status();
  FLATBENCH_RETURN_IF_ERROR(
      WriteFileAtomic(a.out, outcome->document.dump(2) + "\n"));
  if (!a.quiet) {
    std::fprintf(stderr, "bench: wrote %s (%zu entries)\n", a.out.c_str(),
                 outcome->document["benchmarks"].size());
  }
  if (!outcome->first_error.ok()) return outcome->first_error;
  if (outcome->sanity_failed) {
    return Status::Corruption(
        "a sanity check failed; see flatbench.backend.*.sanity_error in " +
        a.out);
  }
  return Status::Ok();
}

constexpr char kHelp[] =
    "Runs the point-read matrix: backend x table (account, storage) x kind "
    "(hit, miss-absent, and miss-live for storage) x threads x mode x "
    "repetition, one google-benchmark entry per measured pass, and writes "
    "google-benchmark JSON (see bench/RESULTS_FORMAT.md). Each backend runs "
    "in its own worker process; before any eviction every backend is "
    "sanity-checked (sampled hits byte for byte, misses absent, both tables; "
    "exit 65 on a wrong answer). Every backend verifies block checksums on "
    "read.\n"
    "Schedule: for each mode, for each repetition, for each cell, every "
    "backend runs the cell once, in an order rotated by (repetition + cell "
    "index), so drift over the run spreads evenly over the backends.\n"
    "Modes:\n"
    "  warm       every backend's files read in, held mapped and locked "
    "(mlock) for the whole warm phase, the backend's own mappings populated; "
    ">= 99% resident (mincore) before and after every pass.\n"
    "  cold       before every pass: close the backend, evict its files "
    "(drop_caches if writable, else fadvise DONTNEED), verify <= 1% resident "
    "(else eviction_verified=0), reopen (timed), which loads its read "
    "metadata (arena index and filter, RocksDB index and filter blocks, LMDB "
    "branch pages), then one pass of fixed iterations, no warm-up.\n"
    "  cold-lazy  as cold, but no backend preloads metadata.\n"
    "Device cells: before each cold hit pass, 4 KiB O_DIRECT random reads "
    "inside the files holding that backend's table, at the same thread count, "
    "in the same process: the limit of those very files at that moment, "
    "against which the pass's I/O efficiency is given.\n"
    "Keys are uniform over the whole key space (a seeded permutation), "
    "distinct within a pass, the same for every backend, prepared before the "
    "timed loop. Throughput comes from the loop's wall time; one read in 16 "
    "is timed for latency and reads in flight.\n"
    "Operations (--kinds scan,startup; informational, never gated): scan "
    "seeks to a uniformly drawn existing key and reads the next "
    "--scan-length pairs in key order, per table and thread count, every "
    "mode, no device cell; startup spawns --startup-probes fresh processes "
    "per pass, each opening the backend and reading one hit account key, "
    "timed from the spawn to that first read (cold: files evicted before "
    "each probe; warm: held resident).";

}  // namespace

Command AddBench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand("bench", kHelp);
  sub->add_option("--dir", a->dir, "Dataset directory")->required();
  AddListOption(sub, "--backends", &a->backends,
                "Comma-separated backends (default: every backend built "
                "in the dataset); also the arena's diagnostic read paths "
                "arena+pread and arena+direct, on the arena's files")
      ->check(CLI::IsMember(BackendNames()));
  sub->add_option("--out", a->out,
                  "Results JSON file (required unless --plan)");
  sub->add_flag("--plan", a->plan_only,
                "Print the plan (each backend's share of the matrix, what "
                "the host leaves out, passes and estimated time per backend "
                "and mode) and exit 0 without running anything");
  sub->add_flag("--full-reference", a->full_reference,
                "Reference rows (backends the thresholds do not name) run the "
                "whole matrix below the gate's scale too, not one repetition");
  sub->add_option("--thresholds", a->thresholds,
                  "Thresholds JSON whose backends are gated (default: the "
                  "built-in thresholds.json)");
  AddListOption(sub, "--modes", &a->modes, "Modes, any subset")
      ->check(CLI::IsMember(ModeNames()));
  AddListOption(sub, "--tables", &a->tables, "Tables, any subset")
      ->check(CLI::IsMember({"account", "storage"}));
  AddListOption(sub, "--kinds", &a->kinds,
                "Key kinds, any subset (miss-live: storage only), and the "
                "operations scan (ordered pages from hit keys) and startup "
                "(a fresh process to its first read)")
      ->check(CLI::IsMember(KindNames()));
  sub->add_option("--scan-length", a->scan_length,
                  "scan: pairs per scan (the page size), 1 to 100000")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000));
  sub->add_option("--scans", a->scans,
                  "scan: scans per pass, over all threads (default: a tenth "
                  "of --reads)")
      ->check(AtLeastOne());
  sub->add_option("--startup-probes", a->startup_probes,
                  "startup: probe processes per pass, 1 to 1000")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  AddListOption(sub, "--threads", &a->threads, "Thread counts, 1 to 1024")
      ->check(CLI::Range(1, 1024));
  sub->add_option("--reads", a->reads,
                  "Reads per pass, over all threads, capped at the key space "
                  "(default 5000 at tiny and smoke, 20000 above)")
      ->check(AtLeastOne());
  sub->add_option("--repetitions", a->repetitions,
                  "Passes per cell, 1 to 1000 (default 3 at tiny/smoke, 5 "
                  "above)")
      ->check(CLI::Range(1, 1000));
  auto* dev = sub->add_option(
      "--device-reads", a->device_reads,
      "Reads per device cell, over all threads (default: as many as "
      "--reads)");
  sub->add_flag("--no-device", a->no_device,
                "Skip the device cells (no I/O efficiency, and the report's "
                "storage-uniformity gate cannot pass)")
      ->excludes(dev);
  sub->add_option("--device-profile", a->device_profile,
                  "Record this device profile (flatbench device --out) in "
                  "the results' context as flatbench.device_profile; checked "
                  "first: exit 66 if the file is missing, 65 naming it and "
                  "the key if it is not a valid profile");
  sub->add_option("--evict", a->evict,
                  "auto (drop_caches when writable, else fadvise), "
                  "drop_caches, or fadvise (per file, leaves the rest of "
                  "the page cache alone)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "drop_caches", "fadvise"}));
  sub->add_flag("--force", a->force, "Replace an existing --out file");
  sub->add_option("--check-samples", a->check_samples,
                  "Sanity-check keys per table and kind")
      ->capture_default_str()
      ->check(AtLeastOne());
  sub->add_option("--cache-mib", a->cache_mib,
                  "arena+cache: block cache size in MiB, split between the "
                  "tables by file size (RocksDB's caches total 1024)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  sub->add_flag("--quiet", a->quiet, "No progress lines");
  sub->add_option("--plan-scale", a->plan_scale, "internal")->group("");
  sub->add_option("--plan-accounts", a->plan_accounts, "internal")->group("");
  sub->add_option("--plan-slots", a->plan_slots, "internal")->group("");
  sub->add_option("--worker", a->worker, "internal: be one backend's worker")
      ->group("");
  sub->add_option("--run-origin", a->run_origin_ns, "internal")->group("");
  sub->add_flag("--corrupt-expectations", a->corrupt_expectations,
                "test hook: make the sanity check fail")
      ->group("");
  sub->add_option("--startup-probe", a->startup_probe,
                  "internal: be a startup probe of this backend")
      ->group("");
  sub->add_option("--probe-key", a->probe_key, "internal")->group("");
  sub->add_flag("--probe-lazy", a->probe_lazy, "internal")->group("");
  return {sub, [a] {
            if (!a->startup_probe.empty()) return RunProbe(*a);
            if (!a->worker.empty()) return RunWorker(*a);
            if (a->out.empty() && !a->plan_only) {
              return Fail(Status::Usage("--out: required (or --plan)"));
            }
            // The parent reports where it stopped itself.
            InstallStopHandler("bench", StopRole::kParent);
            Status st = RunParent(*a);
            if (StopSignal() != 0) return Stopped(*a, st);
            return ExitCodeOf(st);
          }};
}

}  // namespace flatbench::cli
