// flatbench bench: the point-read matrix, each backend in its own worker
// process, driven through one interleaved schedule (bench/run.h), written
// as one google-benchmark JSON file. One binary plays the command's three
// roles: the parent (cli/bench_parent.h), from bench's options; a backend's
// worker (the hidden command bench-worker) and a startup probe (the hidden
// command bench-probe), each told its work by messages on stdin
// (cli/bench_child.h).
#include <memory>

#include "cli/bench_child.h"
#include "cli/bench_parent.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "cli/run_options.h"
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

}  // namespace

Command AddBench(CLI::App& app) {
  auto a = std::make_shared<bench::RunRequest>();
  CLI::App* sub = app.add_subcommand("bench", kBenchHelp);
  AddRunOptions(sub, a.get(), RunCommand::kBench);
  return {sub, [a] {
            if (a->out.empty() && !a->plan) {
              return Fail(Status::Usage("--out: required (or --plan)"));
            }
            // The parent reports where it stopped itself.
            InstallStopHandler("bench", StopRole::kParent);
            Status st = RunParent(*a);
            if (StopSignal() != 0) return Stopped(*a, st);
            return ExitCodeOf(st);
          }};
}

namespace {

// A hidden command: a role one bench process starts another in, told its
// work by messages on stdin.
Command AddRole(CLI::App& app, std::string_view name, const char* help,
                int (*run)()) {
  CLI::App* sub = app.add_subcommand(std::string(name), help);
  sub->group("");
  return {sub, run};
}

}  // namespace

Command AddBenchWorker(CLI::App& app) {
  return AddRole(app, kBenchWorkerCommand,
                 "internal: one backend's worker of a bench run, told the "
                 "run by its first line on stdin",
                 &RunWorker);
}

Command AddBenchProbe(CLI::App& app) {
  return AddRole(app, kBenchProbeCommand,
                 "internal: one startup probe of a bench run, told what to "
                 "read by its one line on stdin",
                 &RunProbe);
}

}  // namespace flatbench::cli
