#pragma once
// What a cell's reads cost in the backend's own counts (RocksDB's perf
// context; bench/RESULTS_FORMAT.md, "Backend counters"), per read: the
// figures the per-cell section shows beside the store's levels, and that
// the fresh-vs-aged comparison can set side by side. Informational: no
// threshold reads them.

#include <cmath>
#include <cstddef>
#include <map>
#include <string>

#include "report/run_data.h"

namespace flatbench::report {

// One level's share of a read (the reads' counts in that level's files).
struct LevelReadCost {
  double filter_probes = NAN;
  double filter_false_positives = NAN;
  double block_cache_misses = NAN;  // Blocks read from that level's files.
};

// Per read, medians over a cell's passes that carry the counts. NaN where
// none does.
struct ReadCost {
  size_t passes = 0;          // Passes with the counts; 0: all NaN.
  double data_blocks = NAN;   // Data blocks read from the files.
  double index_blocks = NAN;  // Index blocks read (0 when preloaded).
  double filter_blocks = NAN;
  double filter_probes = NAN;  // Files whose filter was asked.
  double filter_false_positives = NAN;
  double block_cache_misses = NAN;
  double block_cache_hits = NAN;
  std::map<int, LevelReadCost> levels;  // By level number.
};

// The cost of `cell`'s reads, over its passes without an error (every
// repetition) that carry the backend's counts.
ReadCost ReadCostOf(const ResultSet& results, const CellKey& cell);

// "L0 0.12, L6 1.00": `field` of each level with `decimals` decimals,
// levels ascending; "–" without levels.
std::string PerLevelText(const ReadCost& cost, double LevelReadCost::*field,
                         int decimals = 2);

}  // namespace flatbench::report
