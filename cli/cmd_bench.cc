// flatbench bench: the point-read matrix, each backend in its own worker
// process, driven through one interleaved schedule (bench/run.h), written
// as one google-benchmark JSON file. One binary plays the command's three
// roles from one set of arguments: the parent (cli/bench_parent.h), a
// backend's worker and a startup probe (cli/bench_child.h).
#include <memory>

#include "backends/table.h"
#include "cli/bench_args.h"
#include "cli/bench_child.h"
#include "cli/bench_parent.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "common/stop_signals.h"

namespace flatbench::cli {
namespace {

constexpr char kBenchHelp[] =
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
    "against which the report sets the pass's rate (device-side "
    "efficiency, and hits/s over the device rate).\n"
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
    "each probe; warm: held resident).\n"
    "Batches (--kinds batch; informational, never gated): each operation "
    "is one MultiGet of --batch-size hit keys (default 32), per table, at "
    "the --threads given (default 1 and 2 for batch cells), every mode; "
    "a pass reads about --reads keys. Recorded: keys/s, CPU and storage reads "
    "per key, the I/O depth reached (the backend's own batch submissions "
    "where it counts them, such as the arena's io_uring, else the data "
    "device's in-flight count in /proc/diskstats), and in cold modes keys/s "
    "against the own files' device rate at depth --batch-size: a device "
    "cell at that many threads, run before the batch pass unless the hit "
    "pass at that thread count measured one.\n"
    "Resuming: every finished pass is appended to OUT.journal (one checked "
    "line, fsync'ed) before the next starts. A stopped, killed or crashed "
    "run, rerun with the same flags, continues its schedule at the first "
    "pass not in the journal; the results record each interruption. A "
    "journal of other flags or another dataset is refused (exit 65, naming "
    "the flag), as is one whose last pass is more than 24 h old; --fresh "
    "removes it and starts over. The journal is removed once every pass is "
    "in OUT.";

// The operations' options: scans, startup probes, batches.
void AddOperationOptions(CLI::App* sub, BenchArgs* a) {
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
  sub->add_option("--batch-size", a->batch_size,
                  "batch: keys per MultiGet call (B), 1 to 4096; the "
                  "efficiency is against the device at depth B")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
}

// The device cells, the device profile recorded, and the eviction.
void AddDeviceOptions(CLI::App* sub, BenchArgs* a) {
  auto* dev = sub->add_option(
      "--device-reads", a->device_reads,
      "Reads per device cell, over all threads (default: as many as "
      "--reads)");
  sub->add_flag("--no-device", a->no_device,
                "Skip the device cells (no figure against the device, and "
                "the report's storage-uniformity gate cannot pass)")
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
}

// Hidden: what gonogo, a worker and a probe are told.
void AddInternalOptions(CLI::App* sub, BenchArgs* a) {
  sub->add_option("--results-root", a->results_root, "internal")->group("");
  sub->add_option("--plan-scale", a->plan_scale, "internal")->group("");
  sub->add_option("--plan-accounts", a->plan_accounts, "internal")->group("");
  sub->add_option("--plan-slots", a->plan_slots, "internal")->group("");
  sub->add_option("--worker", a->worker, "internal: be one backend's worker")
      ->group("");
  sub->add_option("--run-origin", a->run_origin_ns, "internal")->group("");
  sub->add_option("--startup-probe", a->startup_probe,
                  "internal: be a startup probe of this backend")
      ->group("");
  sub->add_option("--probe-key", a->probe_key, "internal")->group("");
  sub->add_flag("--probe-lazy", a->probe_lazy, "internal")->group("");
}

}  // namespace

Command AddBench(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  CLI::App* sub = app.add_subcommand("bench", kBenchHelp);
  sub->add_option("--dir", a->dir, "Dataset directory")->required();
  AddListOption(sub, "--backends", &a->backends,
                "Comma-separated backends (default: every backend built "
                "in the dataset); also the arena's diagnostic read paths "
                "arena+pread and arena+direct, on the arena's files")
      ->check(CLI::IsMember(backends::Names()));
  sub->add_option("--out", a->out,
                  "Results JSON file (required unless --plan)");
  sub->add_flag("--plan", a->plan_only,
                "Print the plan (each backend's share of the matrix, what "
                "the host leaves out, passes and estimated time per backend "
                "and mode) and exit 0 without running anything");
  sub->add_flag("--full-reference", a->full_reference,
                "Reference rows (backends the thresholds do not name) run the "
                "whole matrix below the gate's scale too, not one repetition");
  sub->add_option("--calibration", a->calibration,
                  "Results JSON whose step times and device rates calibrate "
                  "the plan's estimate (default: the newest results of this "
                  "host in results/*/bench.json and beside --out; none: the "
                  "built-in cost model alone)");
  sub->add_option("--thresholds", a->thresholds,
                  "Thresholds JSON whose backends are gated (default: the "
                  "built-in thresholds.json)");
  AddListOption(sub, "--modes", &a->modes, "Modes, any subset")
      ->check(CLI::IsMember(ModeNames()));
  AddListOption(sub, "--tables", &a->tables, "Tables, any subset")
      ->check(CLI::IsMember(Names(results::kTables)));
  AddListOption(sub, "--kinds", &a->kinds,
                "Key kinds, any subset (miss-live: storage only), and the "
                "operations scan (ordered pages from hit keys), batch "
                "(MultiGet of --batch-size hit keys) and startup "
                "(a fresh process to its first read)")
      ->check(CLI::IsMember(KindNames()));
  AddOperationOptions(sub, a.get());
  auto* threads =
      AddListOption(sub, "--threads", &a->threads,
                    "Thread counts, 1 to 1024 (batch cells: 1,2 unless given)")
          ->check(CLI::Range(1, 1024));
  sub->add_option("--reads", a->reads,
                  "Reads per pass, over all threads, capped at the key space "
                  "(default 5000 at tiny and smoke, 20000 above)")
      ->check(AtLeastOne());
  sub->add_option("--repetitions", a->repetitions,
                  "Passes per cell, 1 to 1000 (default 3 at tiny/smoke, 5 "
                  "above)")
      ->check(CLI::Range(1, 1000));
  AddDeviceOptions(sub, a.get());
  sub->add_flag("--force", a->force, "Replace an existing --out file");
  sub->add_flag("--fresh", a->fresh,
                "Start over: remove the journal of an earlier, unfinished "
                "run with this --out (OUT.journal) instead of resuming it");
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
  AddInternalOptions(sub, a.get());
  return {sub, [a, threads] {
            a->threads_given = threads->count() > 0;
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
