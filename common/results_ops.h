#pragma once
// The results contract's two operation kinds beside point reads: `scan`
// (an ordered page from a seek key) and `startup` (a fresh process from
// exec to its first successful read). Split from results_schema.h, which
// holds the cell grammar, the point-read counters and the context keys;
// this header holds the counters only these two kinds carry.
//
// Cell names keep the grammar of results_schema.h:
//   <backend>/<table>/scan/<mode>/threads:<N>/rep:<R>
//   <backend>/account/startup/<mode>/threads:1/rep:<R>
// A scan entry carries the point-read counters too, with one "read"
// meaning one scan (a seek and the page after it): reads_per_s is scans
// per second, lat_* the latency of a whole scan, *_per_read per scan. A
// startup entry carries only the counters marked kOnStartup.

#include "common/results_schema.h"

namespace flatbench::results {

// Pairs asked for per scan (the page size).
inline constexpr Counter kScanLength{"scan_length", Type::kCount, kOnScan};
// Pairs returned per scan, mean over the pass (below scan_length only when
// scans reached the table's end).
inline constexpr Counter kEntriesPerScan{"entries_per_scan", Type::kCount,
                                         kOnScan};
// Pairs returned per second: reads_per_s x entries_per_scan.
inline constexpr Counter kEntriesPerS{"entries_per_s", Type::kRate, kOnScan};
// The sum over the pass's scans of XXH3-64 of every returned key and
// value, modulo 2^48 (exact as a JSON number): equal across backends for
// the same cell and repetition when they returned the same pairs.
inline constexpr Counter kScanChecksum{"scan_checksum", Type::kCount, kOnScan};

// Startup: from just before the probe process is spawned to the end of its
// first successful read, CLOCK_MONOTONIC; the median over the probes of the
// pass and the fastest and slowest probe.
inline constexpr Counter kStartupS{"startup_s", Type::kSeconds, kOnStartup};
inline constexpr Counter kStartupMinS{"startup_min_s", Type::kSeconds,
                                      kOnStartup};
inline constexpr Counter kStartupMaxS{"startup_max_s", Type::kSeconds,
                                      kOnStartup};
// Probe processes in the pass.
inline constexpr Counter kStartupProbes{"startup_probes", Type::kCount,
                                        kOnStartup};

inline constexpr Counter kOpCounters[] = {
    kScanLength, kEntriesPerScan, kEntriesPerS, kScanChecksum,
    kStartupS,   kStartupMinS,    kStartupMaxS, kStartupProbes,
};

}  // namespace flatbench::results
