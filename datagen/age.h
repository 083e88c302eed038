#pragma once
// Age: the stream of blocks applied to every complete store of a dataset
// through the store's own write path (StoreWriter), as a running node
// applies them, so that each store ends in the shape a node's has.
//
//   DIR/<store>.aging   while a store is aged: the target, and how many
//                       blocks of it are durable in the store (written
//                       atomically at each checkpoint)
//
// The stores are aged one after the other, so that the bytes each writes
// (/proc/self/io) are its own; each uses the `jobs` its engine can (the
// arena's merge builds shards in parallel). At the start dataset.json takes
// the target spec and its fingerprint; a store's marker takes them when
// the store has applied every block, with its upkeep figures. Until then
// Dataset::Build refuses the store, and gen leaves it alone.
//
// Resuming: a store resumes from its durable block count. Blocks applied
// after the last checkpoint are applied again, which leaves the same state
// (StoreWriter). A signal stops the store being aged after its current
// block (or merge) at a checkpoint.

#include <csignal>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/backend.h"
#include "common/status.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

// A writer for `store` on its files in `dir` (backends::NewWriter).
using WriterFactory = std::function<Result<std::unique_ptr<StoreWriter>>(
    const std::string& store, const std::string& dir,
    const WriterOptions& options)>;

struct AgeOptions {
  std::string dir;
  // The stream to reach: blocks is the target count. When the dataset is
  // already aged its stream must be the same one (SameStream).
  dataset::StreamSpec stream;
  uint64_t merge_every = dataset::kDefaultMergeEvery;
  // The arena's last blocks left in its log after its final merge, for the
  // `arena+delta` read path (WriterOptions::log_tail); 0: none.
  uint64_t log_tail = 0;
  unsigned jobs = 1;
  bool progress = true;
  const volatile std::sig_atomic_t* stop = nullptr;
  // Bytes of the sequential write that measures the device's write rate
  // before the first store is aged (O_DIRECT, 1 MiB at a time, then
  // fdatasync, into an unnamed file of the dataset's folder): what the
  // report prices a full-scale merge with. 0: not measured.
  uint64_t write_probe_bytes = uint64_t{256} << 20;
  // Whether a store can be aged at all (it has a writer); asked of every
  // store before anything is written. Null: every store can.
  std::function<Status(const std::string& store)> can_age;
  // Cues for a test (cli/test_hooks.h), by the stream's block count; 0:
  // none. A checkpoint also after block `checkpoint_after` (they otherwise
  // come every second), and, after block `hold_after`, a hold until a stop
  // signal (needs `stop`), with no checkpoint of its own: a kill there
  // finds the blocks applied since the last checkpoint in the arena's log.
  uint64_t checkpoint_after = 0;
  uint64_t hold_after = 0;
};

// One store's upkeep over the blocks this run applied.
struct Upkeep {
  std::string store;
  uint64_t blocks = 0;         // Applied by this run.
  double seconds = 0;          // Applying them, checkpoints and finish.
  uint64_t logical_bytes = 0;  // Keys and values of the changes.
  uint64_t written_bytes = 0;  // /proc/self/io write_bytes (0: unknown).
  // False when another process writes the store's files (the engine's
  // figures say "written_by"): written_bytes is then not the store's.
  bool written_known = true;
  uint64_t disk_bytes = 0;              // The store's files afterwards.
  uint64_t live_bytes = 0;              // Keys and values of the aged state.
  double device_write_bytes_per_s = 0;  // The probe's; 0: not measured.
  // The block after which it met its steady state (StoreWriter::Steady);
  // 0: not met, or no such condition. `steady_what`: its figures then.
  uint64_t steady_at = 0;
  std::string steady_what;
  Settings engine;           // StoreWriter::Upkeep.
  double write_amp() const;  // written / logical.
  double space_amp() const;  // disk / live.
};

// Ages every complete store of opts.dir to opts.stream. kUsage for a
// target at or below the dataset's blocks or another stream; kMissingInput
// for a dataset with no complete store; the writers' errors naming the
// store; kIOError "stopped" after a signal (the stores keep their durable
// progress).
Result<std::vector<Upkeep>> Age(const AgeOptions& opts,
                                const WriterFactory& factory);

}  // namespace flatbench::datagen
