// flatbench age: the stream of blocks applied to a dataset's stores through
// their write paths, and what it cost each of them.
#include <cstdio>
#include <memory>
#include <thread>

#include "backends/table.h"
#include "cli/command.h"
#include "cli/exit.h"
#include "cli/flags.h"
#include "cli/test_hooks.h"
#include "common/files.h"
#include "datagen/age.h"
#include "datagen/dataset_dir.h"

namespace flatbench::cli {
namespace {

struct AgeArgs {
  std::string dir;
  dataset::StreamSpec stream;
  uint64_t merge_every = 0;  // 0: dataset::DefaultMergeEvery.
  uint64_t delta_tail = 0;
  int jobs = 0;
  bool quiet = false;
};

void PrintUpkeep(const std::vector<datagen::Upkeep>& done) {
  std::printf("%-8s %8s %10s %12s %12s %9s %12s %9s\n", "store", "blocks",
              "ms/block", "logical", "written", "write amp", "disk",
              "space amp");
  for (const auto& u : done) {
    // A server's processes write its files: this process's count is not
    // the store's (see its engine's figures, such as wal_bytes).
    char amp[32] = "–";
    if (u.written_known) std::snprintf(amp, sizeof(amp), "%.1f", u.write_amp());
    std::printf(
        "%-8s %8llu %10.2f %12s %12s %9s %12s %9.2f\n", u.store.c_str(),
        static_cast<unsigned long long>(u.blocks),
        u.blocks == 0 ? 0.0 : 1e3 * u.seconds / static_cast<double>(u.blocks),
        HumanBytes(u.logical_bytes).c_str(),
        u.written_known ? HumanBytes(u.written_bytes).c_str() : "–", amp,
        HumanBytes(u.disk_bytes).c_str(), u.space_amp());
  }
  if (!done.empty() && done.front().device_write_bytes_per_s > 0) {
    std::printf("device sequential write (O_DIRECT probe): %.0f MB/s\n",
                done.front().device_write_bytes_per_s / 1e6);
  }
  for (const auto& u : done) {
    for (const auto& [k, v] : u.engine) {
      std::printf("%s.%s %s\n", u.store.c_str(), k.c_str(), v.c_str());
    }
  }
}

Status RunAge(const AgeArgs& a) {
  datagen::AgeOptions o;
  o.dir = a.dir;
  o.stream = a.stream;
  FLATBENCH_ASSIGN_OR_RETURN(const datagen::Dataset ds,
                             datagen::Dataset::Open(a.dir));
  if (o.stream.blocks == 0) {
    FLATBENCH_RETURN_IF_ERROR(dataset::ValidateStream(o.stream));
    o.stream.blocks = dataset::SteadyStateBlocks(ds.spec(), o.stream);
    if (!a.quiet) {
      std::fprintf(stderr,
                   "age: no --blocks: %llu blocks, the stream that brings "
                   "every store of this scale to its steady state "
                   "(RESEARCH.md, section 11)\n",
                   static_cast<unsigned long long>(o.stream.blocks));
    }
  }
  o.log_tail = a.delta_tail;
  o.merge_every = a.merge_every != 0
                      ? a.merge_every
                      : dataset::DefaultMergeEvery(ds.spec(), o.stream);
  o.jobs = a.jobs > 0 ? static_cast<unsigned>(a.jobs)
                      : std::max(1u, std::thread::hardware_concurrency());
  o.progress = !a.quiet;
  o.stop = CatchStopSignals();
  o.can_age = backends::CheckWritable;
  o.checkpoint_after = AgeCheckpointAtHook();
  o.hold_after = AgeHoldAtHook();
  FLATBENCH_ASSIGN_OR_RETURN(auto done, datagen::Age(o, backends::NewWriter));
  PrintUpkeep(done);
  return Status::Ok();
}

}  // namespace

Command AddAge(CLI::App& app) {
  auto a = std::make_shared<AgeArgs>();
  CLI::App* sub = app.add_subcommand(
      "age",
      "Apply the stream of blocks to every complete store of a dataset "
      "through the write path a node uses: RocksDB a WriteBatch per block "
      "with its automatic compactions, LMDB a write transaction per block, "
      "SQLite and PostgreSQL a transaction per block, the file store a file "
      "replaced or removed per change, the arena a delta merged into a new "
      "base every --merge-every blocks, each block appended first to the "
      "arena's log beside it (DIR/arena.log), synced at every checkpoint, "
      "so a kill loses no block: the rerun reads the unmerged blocks back "
      "and says how many. RocksDB still in the bulk load's single "
      "last-level run is first loaded through its write path in key order, "
      "as a sync writes it. "
      "Then each store is in the shape a running node's has, holding the "
      "state gen --blocks N builds fresh; verify checks it. Prints each "
      "store's upkeep (time per block, bytes written, write and space "
      "amplification, its engine's shape) and records it in the store's "
      "marker. Resumable: each store continues from its last checkpoint. On "
      "SIGINT, SIGTERM or SIGHUP it stops at a checkpoint and exits "
      "128+signal. Exit 64 for a target below the dataset's blocks or "
      "another stream, 66 for a dataset with no complete store.");
  sub->add_option("--dir", a->dir, "Dataset directory")->required();
  AddStreamOptions(sub, &a->stream);
  sub->get_option("--blocks")
      ->description(
          "Blocks of the stream to reach (default: enough that every store "
          "reaches its steady state: RocksDB's compactions have written its "
          "size, LMDB's leaf fill has settled; age prints the block at which "
          "each did)");
  sub->add_option("--merge-every", a->merge_every,
                  "The arena's blocks per merge (default: per scale, the "
                  "interval at which a merge rewrites 30 times the bytes "
                  "its blocks change, from 100 to 7,200 blocks; RESEARCH.md "
                  "section 11)")
      ->check(AtLeastOne());
  sub->add_option("--delta-tail", a->delta_tail,
                  "Leave the arena's last K blocks in its log after the final "
                  "merge (the base holds them too, so reading them again "
                  "changes nothing): the delta the arena+delta read path "
                  "reads first. K = --merge-every - 1 is the delta at its "
                  "largest, just before a merge (RESEARCH.md section 11)")
      ->check(AtLeastOne());
  sub->add_option("--jobs", a->jobs,
                  "Threads for the arena's merges and the target's "
                  "fingerprint (default: the host's hardware threads); "
                  "stores are aged one after another")
      ->check(AtLeastOne());
  sub->add_flag("--quiet", a->quiet, "No progress lines");
  return {sub, [a] { return ExitCodeOfStoppable(RunAge(*a), "age"); }};
}

}  // namespace flatbench::cli
