#pragma once
// The per-entry counters of RESULTS_FORMAT.md, computed from one pass and
// the facts the harness established before it.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "bench/pass.h"

namespace flatbench::bench {

// What the harness knows about a cell apart from the pass itself.
struct CellFacts {
  int threads = 1;
  int repetition = 0;
  uint64_t distinct_keys = 0;
  double open_seconds = 0;
  uint64_t metadata_bytes = 0;
  uint64_t rss_after_open = 0;
  double resident_before = 0;  // Just before the pass.
  uint64_t file_pages = 0;     // Pages of the files measured for residency.
  // Cold modes: after eviction, before reopen. Absent in warm mode.
  std::optional<double> resident_after_eviction;
  // Warm mode: measured again after the pass, to catch a page-cache drop by
  // another process during it. Absent in cold modes.
  std::optional<double> resident_after_pass;
  bool eviction_verified = false;
};

// Adds every counter to `entry` (a google-benchmark JSON entry).
void AddCounters(const PassResult& pass, const CellFacts& facts,
                 nlohmann::json* entry);

// The counter names every entry carries, for tests and the report.
const char* const* CounterNames(int* count);

// One progress line for stderr summarising an entry.
std::string SummaryLine(const nlohmann::json& entry);

}  // namespace flatbench::bench
