#pragma once
// The per-entry counters of RESULTS_FORMAT.md, computed from one pass and
// the facts the harness established before it.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "bench/pass.h"
#include "common/results_schema.h"

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
  // Bytes of the backend's files resident just before the pass (cold: what
  // the open itself read).
  uint64_t preloaded_bytes = 0;
  // Warm: bytes held mapped and locked during the pass. Absent in cold.
  std::optional<uint64_t> locked_bytes;
  // Cold hit cells: the reads/s of the device pass run just before.
  std::optional<double> device_reads_per_s;
  // Read requests the data device completed during the pass (every
  // process's); absent when its line in /proc/diskstats was not read.
  std::optional<uint64_t> device_requests;
  double pass_start_s = 0;  // From the run's origin.
};

// Facts of a device cell (see device.h).
struct DeviceFacts {
  int threads = 1;
  int repetition = 0;
  uint64_t file_bytes = 0;  // Whole 4 KiB blocks of the files read.
  double pass_start_s = 0;
};

// Adds every counter to `entry` (a google-benchmark JSON entry).
void AddCounters(const PassResult& pass, const CellFacts& facts,
                 nlohmann::json* entry);

// Adds a device cell's counters.
void AddDeviceCounters(const PassResult& pass, const DeviceFacts& facts,
                       nlohmann::json* entry);

// A pass waited on storage: the results contract's rule.
using results::kStorageBoundBytesPerRead;
using results::kStorageBoundFaultsPerRead;

// One progress line for stderr summarising an entry.
std::string SummaryLine(const nlohmann::json& entry);

}  // namespace flatbench::bench
