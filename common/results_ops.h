#pragma once
// The results contract's operation kinds beside point reads: `scan` (an
// ordered page from a seek key), `startup` (a fresh process from exec to
// its first successful read) and `batch` (MultiGet of batch_size hit keys
// per call). Split from results_schema.h, which holds the cell grammar,
// the point-read counters and the context keys; this header holds the
// counters only these kinds carry.
//
// Cell names keep the grammar of results_schema.h:
//   <backend>/<table>/scan/<mode>/threads:<N>/rep:<R>
//   <backend>/account/startup/<mode>/threads:1/rep:<R>
//   <backend>/<table>/batch/<mode>/threads:<N>/rep:<R>
// A scan entry carries the point-read counters too, with one "read"
// meaning one scan (a seek and the page after it): reads_per_s is scans
// per second, lat_* the latency of a whole scan, *_per_read per scan. A
// startup entry carries only the counters marked kOnStartup. A batch entry
// carries the point-read counters with one "read" meaning one MultiGet
// call of batch_size keys, and the per-key figures below.

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

// Batch: keys per MultiGet call, and keys answered per second
// (reads_per_s x batch_size).
inline constexpr Counter kBatchSize{"batch_size", Type::kCount, kOnBatch};
inline constexpr Counter kKeysPerS{"keys_per_s", Type::kRate, kOnBatch};
// cpu_ns_per_read / batch_size; absent when cpu_ns_per_read is.
inline constexpr Counter kCpuNsPerKey{"cpu_ns_per_key", Type::kNanos, kOnBatch};
// 4 KiB reads from storage per key: bytes_read_per_read / 4096 /
// batch_size; absent when bytes_read_per_read is.
inline constexpr Counter kStorageReadsPerKey{"storage_reads_per_key",
                                             Type::kCount, kOnBatch};
// The I/O depth the pass reached: the deepest and the mean number of reads
// in flight, from the backend's own batch submissions (io_depth_source 1:
// BatchIoStats max_depth and reads / submissions) or from sampling the
// data device's in-flight count in /proc/diskstats (source 0). Absent when
// neither is known (no submission and no device in /proc/diskstats).
inline constexpr Counter kIoDepthMax{"io_depth_max", Type::kCount, kOnBatch};
inline constexpr Counter kIoDepthMean{"io_depth_mean", Type::kCount, kOnBatch};
inline constexpr Counter kIoDepthSource{"io_depth_source", Type::kFlag,
                                        kOnBatch};
// Cold batch cells whose backend's device cells were measured: the own
// files' device rate at depth batch_size (the device entry of the same
// backend, table, mode and repetition at threads:<batch_size>), and
// keys_per_s / it.
inline constexpr Counter kBatchDeviceReadsPerS{"batch_device_reads_per_s",
                                               Type::kRate, kOnBatch};
inline constexpr Counter kBatchIoEfficiency{"batch_io_efficiency", Type::kCount,
                                            kOnBatch};

inline constexpr Counter kOpCounters[] = {
    kScanLength,        kEntriesPerScan, kEntriesPerS,   kScanChecksum,
    kStartupS,          kStartupMinS,    kStartupMaxS,   kStartupProbes,
    kBatchSize,         kKeysPerS,       kCpuNsPerKey,   kStorageReadsPerKey,
    kIoDepthMax,        kIoDepthMean,    kIoDepthSource, kBatchDeviceReadsPerS,
    kBatchIoEfficiency,
};

// Whether a batch counter may be absent from a batch entry (it is then
// not required): those that depend on what the host can measure.
bool BatchCounterOptional(const Counter& counter);

}  // namespace flatbench::results
