#pragma once
// Internal to the writing pass (writing_pass.cc): what it measured, and
// the results entry made from it (RESULTS_FORMAT.md, "Writing cells").

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/histogram.h"
#include "common/live_store.h"

namespace flatbench::bench {

// One timed read: when it ended (ns from the pass's origin) and how long
// it took.
struct TimedRead {
  uint64_t end_ns = 0;
  uint64_t latency_ns = 0;
};

struct WritingFigures {
  Histogram hist;  // Every timed read.
  uint64_t reads = 0, found = 0;
  double wall_seconds = 0;  // First read's start to last read's end.
  double first_read_s = 0;  // From the origin.
  std::vector<TimedRead> samples;
  std::vector<uint64_t> block_ns;
  double writing_seconds = 0;
  uint64_t block_rate = 0;
  bool cap_hit = false;
  uint64_t checks = 0, wrong = 0;
  std::string first_wrong;
  bool merges = false;               // The store merges (the arena).
  std::vector<MergeWindow> windows;  // Seconds from the origin.
  double merge_mb_per_s = 0;
  bool background = false;  // The store counts its compactions.
  uint64_t compactions = 0, compaction_bytes = 0;
};

// The counters and arrays of a writing entry (without its name, label,
// threads and repetition, which the worker adds).
nlohmann::json WritingEntry(const WritingFigures& f);

// The series' interval for a pass of `seconds`: 1 s from 20 s on, else a
// multiple of 0.1 s giving about 20 intervals.
double SeriesInterval(double seconds);

}  // namespace flatbench::bench
