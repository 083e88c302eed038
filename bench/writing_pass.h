#pragma once
// A writing pass (bench --write-while-reading): `threads` reader threads
// read hit keys through a live store's sessions (common/live_store.h) while
// one writer thread applies the dataset's stream of blocks to the same
// store (datagen/blocks.h, the stream `age` applies, continued from the
// dataset's own last block).
//
// The pass ends when every reader has made its reads (each thread goes
// round its keys again as long as the pass lasts), the writer has applied
// at least one block for kWritingMinSeconds, and, for a store that merges
// (the arena), one merge has ended; or at the cap (kWritingCapSeconds),
// which the entry records and the worker prints.
//
// Keys: each thread reads its share of the plan, then keys no read of the
// pass has read (the sampler's draws after the plan), so a cold pass stays
// cold however long the writer needs.
//
// Correctness: one read in kLatencySampleEvery is timed and, for the first
// kWritingChecksPerThread of them per thread within its share of the plan,
// checked after the pass: its
// answer must be the key's state after k blocks of the pass for some k
// between the blocks done when the read began and the blocks begun when it
// ended. The writer records, for every key a reader reads, each version it
// writes; the state before the pass is the sampler's expected value.

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/key_plan.h"
#include "common/live_store.h"
#include "datagen/sampler.h"
#include "dataset/spec.h"

namespace flatbench::bench {

inline constexpr double kWritingMinSeconds = 2;
inline constexpr double kWritingCapSeconds = 300;
inline constexpr uint64_t kWritingChecksPerThread = 4096;
// Sampled reads kept per thread with their time, for the series and the
// figures inside and outside merge windows.
inline constexpr uint64_t kWritingSamplesPerThread = uint64_t{1} << 20;

struct WritingSpec {
  int threads = 1;
  Table table = Table::kAccount;
  // Each thread reads at least this many keys (its share of the plan).
  uint64_t reads_per_thread = 0;
  const KeyPlan* plan = nullptr;  // threads x reads_per_thread hit keys.
  // The sampler the plan drew from and its first index: the state of each
  // key before the pass.
  const datagen::Sampler* sampler = nullptr;
  uint64_t first_index = 0;
  dataset::Spec spec;  // Its stream continues at spec.stream.blocks.
  LiveStore* store = nullptr;
  uint64_t block_rate = 0;  // Blocks per second; 0: as fast as it takes them.
  double cap_seconds = kWritingCapSeconds;
  // CLOCK_MONOTONIC ns when the store was opened (its merge windows count
  // from there).
  uint64_t store_open_ns = 0;
  // Test hook: every expected state before the pass is made wrong.
  bool corrupt_expected = false;
};

// The pass's counters and arrays for its results entry
// (RESULTS_FORMAT.md, "Writing cells"), or the first read or write error.
// A read whose answer no state of its window explains is kCorruption naming
// the key, what it read and what the blocks allowed.
Result<nlohmann::json> RunWritingPass(const WritingSpec& spec);

}  // namespace flatbench::bench
