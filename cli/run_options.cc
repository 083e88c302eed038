#include "cli/run_options.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "backends/table.h"
#include "cli/bench_args.h"
#include "cli/flags.h"
#include "common/hex.h"

namespace flatbench::cli {
namespace {

// The help `c` gives an option, or null when `c` does not offer it.
const char* Words(RunCommand c, const char* bench, const char* gonogo,
                  const char* sweep) {
  switch (c) {
    case RunCommand::kBench:
      return bench;
    case RunCommand::kGonogo:
      return gonogo;
    case RunCommand::kSweep:
      return sweep;
  }
  return nullptr;
}

// What the run is on and where it goes, and what shapes its plan.
void AddRunTargetOptions(CLI::App* sub, bench::RunRequest* r, RunCommand c) {
  const bool bench = c == RunCommand::kBench;
  if (bench) sub->add_option("--dir", r->dir, "Dataset directory")->required();
  AddListOption(
      sub, "--backends", &r->backends,
      Words(c,
            "Comma-separated backends (default: every backend built in the "
            "dataset); also the arena's diagnostic read paths arena+pread "
            "and arena+direct, on the arena's files",
            "Comma-separated backends (default: at the thresholds' gate "
            "scale (full) the gated ones, those thresholds.json names, and "
            "arena+cache; below it every store this build holds, fs only up "
            "to smoke scale, and arena+cache). Reference rows (postgres, "
            "sqlite, fs) at full scale only when named here",
            "Comma-separated backends (default: every store buildable at "
            "every size asked, and arena+cache), and read paths of the arena "
            "(arena+cache, arena+pread, arena+direct) measured on its files"))
      ->check(CLI::IsMember(backends::Names()));
  if (!bench) return;
  sub->add_option("--out", r->out,
                  "Results JSON file (required unless --plan)");
  sub->add_flag("--plan", r->plan,
                "Print the plan (each backend's share of the matrix, what "
                "the host leaves out, passes and estimated time per backend "
                "and mode) and exit 0 without running anything");
}

// The host's device profile: recorded, and for gonogo --plan the host
// planned for.
void AddDeviceProfileOption(CLI::App* sub, bench::RunRequest* r, RunCommand c) {
  const bool bench = c == RunCommand::kBench;
  sub->add_option(
      "--device-profile", r->device_profile,
      bench ? "Record this device profile (flatbench device --out) in the "
              "results' context as flatbench.device_profile; checked first: "
              "exit 66 if the file is missing, 65 naming it and the key if "
              "it is not a valid profile"
            : "A device profile (flatbench device --out P.json): bench "
              "records it; with --plan, the plan is for the host it "
              "describes (its cpus and device)");
}

// What the plan reads: the thresholds, the reference rows' share, the
// calibration and the host's device profile.
void AddPlanInputOptions(CLI::App* sub, bench::RunRequest* r, RunCommand c) {
  if (c == RunCommand::kSweep) return;
  const bool bench = c == RunCommand::kBench;
  sub->add_flag("--full-reference", r->full_reference,
                bench ? "Reference rows (backends the thresholds do not name) "
                        "run the whole matrix below the gate's scale too, not "
                        "one repetition"
                      : "Reference rows run the whole bench matrix below full "
                        "scale too (bench --full-reference)");
  CLI::Option* calibration = sub->add_option(
      "--calibration", r->calibration,
      bench ? "Results JSON whose step times and device rates calibrate the "
              "plan's estimate (default: the newest results of this host in "
              "results/*/bench.json and beside --out; none: the built-in "
              "cost model alone)"
            : "Results JSON whose step times and device rates calibrate the "
              "plan's estimate (default: the newest bench.json of this host "
              "under --results; none: the built-in cost model alone); the "
              "gen estimate calibrates from this host's dataset markers "
              "beside --dir");
  // gonogo names the file before its first phase starts.
  if (!bench) {
    calibration->check([](const std::string& v) -> std::string {
      return v == "none" || std::filesystem::exists(v)
                 ? ""
                 : "no such results file: " + v;
    });
  }
  sub->add_option("--thresholds", r->thresholds,
                  bench ? "Thresholds JSON whose backends are gated (default: "
                          "the built-in thresholds.json)"
                        : "Thresholds file (default: the checked-in one)");
  if (!bench) AddDeviceProfileOption(sub, r, c);
}

// The matrix: modes, tables, kinds, threads, reads and repetitions.
void AddMatrixOptions(CLI::App* sub, bench::RunRequest* r, RunCommand c) {
  const bool bench = c == RunCommand::kBench;
  const bool sweep = c == RunCommand::kSweep;
  if (bench) {
    AddListOption(sub, "--modes", &r->modes, "Modes, any subset")
        ->check(CLI::IsMember(ModeNames()));
    AddListOption(sub, "--tables", &r->tables, "Tables, any subset")
        ->check(CLI::IsMember(Names(results::kTables)));
    AddListOption(sub, "--kinds", &r->kinds,
                  "Key kinds, any subset (miss-live: storage only), and the "
                  "operations scan (ordered pages from hit keys), batch "
                  "(MultiGet of --batch-size hit keys) and startup "
                  "(a fresh process to its first read)")
        ->check(CLI::IsMember(KindNames()));
  }
  CLI::Option* threads =
      AddListOption(sub, "--threads", &r->threads,
                    Words(c,
                          "Thread counts, 1 to 1024 (batch cells: 1,2 unless "
                          "given)",
                          "Thread counts, 1 to 1024 (bench default)",
                          "Thread counts, 1 to 1024 (bench --threads)"))
          ->check(CLI::Range(1, 1024));
  if (bench) {
    threads->default_str(Join(std::vector<int>(bench::kDefaultThreads.begin(),
                                               bench::kDefaultThreads.end())));
  }
  CLI::Option* reads =
      sub->add_option("--reads", r->reads,
                      Words(c,
                            "Reads per pass, over all threads, capped at the "
                            "key space (default 5000 at tiny and smoke, 20000 "
                            "above)",
                            "Reads per pass (bench default)",
                            "Reads per pass (bench --reads)"))
          ->check(AtLeastOne());
  CLI::Option* repetitions =
      sub->add_option("--repetitions", r->repetitions,
                      Words(c,
                            "Passes per cell, 1 to 1000 (default 3 at "
                            "tiny/smoke, 5 above)",
                            "Cold repetitions, 1 to 1000 (bench default: 3 at "
                            "smoke, 5 above)",
                            "Cold passes per cell and size, 1 to 1000"))
          ->check(CLI::Range(1, 1000));
  if (sweep) {
    reads->capture_default_str();
    repetitions->capture_default_str();
    return;
  }
  sub->add_option("--draw-seed", r->draw_seed,
                  "Seed of the key draws (decimal or 0x hex): every backend "
                  "reads the same keys in a cell, and another seed draws "
                  "another sample, to check that a figure does not hinge on "
                  "the keys drawn")
      ->default_str("0x" + Hex64(bench::kDefaultDrawSeed));
}

// The operations: scans, startup probes, batches.
void AddOperationOptions(CLI::App* sub, bench::RunRequest* r) {
  sub->add_option("--scan-length", r->scan_length,
                  "scan: pairs per scan (the page size), 1 to 100000")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000));
  sub->add_option("--scans", r->scans,
                  "scan: scans per pass, over all threads (default: a tenth "
                  "of --reads)")
      ->check(AtLeastOne());
  sub->add_option("--startup-probes", r->startup_probes,
                  "startup: probe processes per pass, 1 to 1000")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  sub->add_option("--batch-size", r->batch_size,
                  "batch: keys per MultiGet call (B), 1 to 4096; the "
                  "efficiency is against the device at depth B")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
}

// The device cells and the eviction.
void AddDeviceOptions(CLI::App* sub, bench::RunRequest* r, RunCommand c) {
  if (c == RunCommand::kGonogo) return;
  const bool bench = c == RunCommand::kBench;
  CLI::Option* dev = nullptr;
  if (bench) {
    dev = sub->add_option("--device-reads", r->device_reads,
                          "Reads per device cell, over all threads (default: "
                          "as many as --reads)");
  }
  CLI::Option* no_device = sub->add_flag(
      "--no-device", r->no_device,
      bench ? "Skip the device cells (no figure against the device, and the "
              "report's storage-uniformity gate cannot pass)"
            : "Skip the device profile and the device cells (bench "
              "--no-device)");
  if (dev != nullptr) no_device->excludes(dev);
  if (bench) AddDeviceProfileOption(sub, r, c);
}

// How cold passes evict.
void AddEvictOption(CLI::App* sub, bench::RunRequest* r, RunCommand c) {
  CLI::Option* evict =
      sub->add_option("--evict", r->evict,
                      Words(c,
                            "auto (drop_caches when writable, else fadvise), "
                            "drop_caches, or fadvise (per file, leaves the "
                            "rest of the page cache alone)",
                            "How cold passes evict: auto, drop_caches or "
                            "fadvise (bench default: auto, drop_caches when "
                            "writable, else fadvise)",
                            "auto, drop_caches or fadvise (bench --evict)"))
          ->check(CLI::IsMember({"auto", "drop_caches", "fadvise"}));
  if (c == RunCommand::kBench) evict->default_str("auto");
  if (c == RunCommand::kSweep) evict->capture_default_str();
}

// The writing cells: reads while the store takes blocks.
void AddWritingOptions(CLI::App* sub, bench::RunRequest* r, RunCommand c) {
  if (c == RunCommand::kSweep) return;
  CLI::Option* on = sub->add_flag(
      "--write-while-reading", r->write_while_reading,
      "Also measure hit reads while the store takes the dataset's stream of "
      "blocks (the stream age applies, continued from the dataset's last "
      "block): one writing cell per table at 1 and 8 threads of --threads "
      "(the fewest when neither), in the warm and cold modes run, in the "
      "first --writing-repetitions repetitions. "
      "Each runs on a copy of the store beside it (DIR.live, reflinked "
      "where the filesystem can, removed after), so the dataset is never "
      "changed; the writer runs in the worker beside the readers (RocksDB "
      "a WriteBatch per block with its compactions, LMDB a write "
      "transaction per block, the arena its delta and log with a merge "
      "every --merge-every blocks, the file store a file per change). "
      "Reads go on until every thread made its --reads share, a block was "
      "applied and, for the arena, a merge ended (at most 300 s). Sampled "
      "reads are checked against the state of the blocks applied as they "
      "ran (exit 65 on a wrong one). Stores that cannot be read while "
      "written (sqlite, postgres, read variants) are refused when named, "
      "else left out of the writing cells");
  sub->add_option("--block-rate", r->block_rate,
                  "With --write-while-reading: blocks per second the writer "
                  "applies (default: as fast as the store takes them)")
      ->needs(on);
  sub->add_option("--merge-every", r->merge_every,
                  "With --write-while-reading: the arena merges its delta "
                  "into a new base every this many blocks (default: age's "
                  "default for the dataset, RESEARCH.md section 11)")
      ->needs(on)
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  sub->add_option("--writing-repetitions", r->writing_repetitions,
                  "With --write-while-reading: writing passes per cell and "
                  "mode, in the first this many repetitions (default 1; at "
                  "most --repetitions)")
      ->needs(on)
      ->check(CLI::Range(1, 1000));
}

// bench's own: replacing and resuming, the sanity check, the cache, and
// where gonogo's results are.
void AddBenchOnlyOptions(CLI::App* sub, bench::RunRequest* r) {
  sub->add_flag("--force", r->force, "Replace an existing --out file");
  sub->add_flag("--fresh", r->fresh,
                "Start over: remove the journal of an earlier, unfinished "
                "run with this --out (OUT.journal) instead of resuming it");
  sub->add_option("--check-samples", r->check_samples,
                  "Sanity-check keys per table and kind")
      ->capture_default_str()
      ->check(AtLeastOne());
  sub->add_option("--cache-mib", r->cache_mib,
                  "arena+cache: block cache size in MiB, split between the "
                  "tables by file size (RocksDB's caches total 1024)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  sub->add_option("--results-root", r->results_root,
                  "Folder of gonogo's results (gonogo --results): without "
                  "--calibration, the newest RESULTS_ROOT/*/bench.json of "
                  "this host calibrates the plan")
      ->capture_default_str();
}

}  // namespace

void AddRunOptions(CLI::App* sub, bench::RunRequest* r, RunCommand c) {
  AddRunTargetOptions(sub, r, c);
  AddPlanInputOptions(sub, r, c);
  AddMatrixOptions(sub, r, c);
  if (c == RunCommand::kBench) AddOperationOptions(sub, r);
  AddDeviceOptions(sub, r, c);
  AddEvictOption(sub, r, c);
  AddWritingOptions(sub, r, c);
  if (c == RunCommand::kBench) AddBenchOnlyOptions(sub, r);
  if (c != RunCommand::kGonogo) {
    sub->add_flag("--quiet", r->quiet, "No progress lines");
  }
}

std::vector<std::string> RequestArgs(const bench::RunRequest& r) {
  const nlohmann::json given = bench::RunRequestToJson(r);
  const nlohmann::json defaults = bench::RunRequestToJson(bench::RunRequest());
  std::vector<std::string> args;
  for (std::string_view field : bench::RunRequestFields()) {
    const std::string name(field);
    const nlohmann::json& v = given[name];
    if (v == defaults[name]) continue;
    // Every flag is off by default: one that differs is on.
    args.push_back("--" + name);
    if (v.is_boolean()) continue;
    if (v.is_string()) {
      args.push_back(v.get<std::string>());
    } else if (v.is_array()) {
      std::string list;
      for (const auto& item : v) {
        if (!list.empty()) list += ',';
        list += item.is_string() ? item.get<std::string>() : item.dump();
      }
      args.push_back(list);
    } else {
      args.push_back(v.dump());
    }
  }
  return args;
}

std::vector<std::string> BenchCommandLine(const bench::RunRequest& r) {
  std::vector<std::string> args = {"bench"};
  const std::vector<std::string> options = RequestArgs(r);
  args.insert(args.end(), options.begin(), options.end());
  return args;
}

}  // namespace flatbench::cli
