#pragma once
// One measured pass through google-benchmark: `threads` OS threads, released
// together by google-benchmark's start barrier, each doing exactly
// `reads_per_thread` reads (->Iterations, ->UseRealTime, one repetition, so
// there is no probe or warm-up run).
//
// Timing does not tax the faster engine: throughput comes from each
// thread's loop wall time, with no clock call per read; one read in
// kLatencySampleEvery is timed (two CLOCK_MONOTONIC reads) into a per-thread
// histogram. The mean and peak reads in flight come from the threads' loop
// spans, every read included (inflight.h), so the peak is never below the
// mean.
//
// Everything a pass needs (keys, open backend, eviction) is prepared by the
// caller before RunPass; readers are created on their own thread before the
// timed loop and destroyed on it afterwards (LMDB read transactions belong
// to the thread that began them).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/histogram.h"
#include "bench/io_stats.h"
#include "common/backend.h"
#include "common/status.h"

namespace flatbench::bench {

// One thread's reads. Not thread-safe; used only on the thread that made it.
class PassReader {
 public:
  virtual ~PassReader() = default;
  // Performs this thread's i-th read (i < reads_per_thread); sets *found.
  // Must not allocate: it runs inside the timed loop.
  virtual Status Read(uint64_t i, bool* found) = 0;
  // What this thread's reads cost in the backend's own counts
  // (ReadSession::TakeReadCost), taken on this thread after the timed loop
  // and its counters. Default: none.
  virtual ReadCost TakeReadCost() { return {}; }
};

// One read in this many is timed for the latency percentiles.
inline constexpr uint64_t kLatencySampleEvery = 16;

struct PassSpec {
  std::string name;  // The google-benchmark entry name.
  int threads = 1;
  uint64_t reads_per_thread = 0;  // REQUIRES: > 0.
  // Runs on worker thread `thread` before the timed loop.
  std::function<Result<std::unique_ptr<PassReader>>(int thread)> make_reader;
  // Optional: the server processes the reads are served by (a
  // client/server backend's, Backend::ServerProcesses), asked once the
  // readers exist (so each reader's connection process is among them).
  std::function<std::vector<int>()> server_processes;
  // Optional: run by one thread just before the counters are taken at the
  // timed loop's start, and just after they are taken at its end (a
  // sampler that watches the loop, disk_inflight.h).
  std::function<void()> on_loop_start, on_loop_end;
};

struct PassResult {
  nlohmann::json entry;      // google-benchmark's JSON entry, renamed to name.
  nlohmann::json context;    // google-benchmark's JSON context.
  uint64_t reads = 0;        // Completed reads, all threads.
  uint64_t found = 0;        // Reads that found their key.
  double wall_seconds = 0;   // First thread's loop start to last one's end.
  Histogram latency;         // Merged over threads; sampled reads only.
  double mean_inflight = 0;  // Loop time summed over threads / wall.
  uint64_t peak_inflight = 0;  // Most loops at once: >= mean_inflight.
  IoSnapshot before, after;    // Process-wide, around the timed loop only.
  // The server processes' faults, read bytes and CPU time over the same
  // span, summed (zero and known when there are none).
  IoSnapshot servers{0, 0, 0, true, 0, true};
  size_t server_processes = 0;
  // RSS after the loop, plus the server processes' Pss (io_stats.h).
  uint64_t rss_after_pass = 0;
  // The readers' TakeReadCost, summed by name over the threads.
  std::map<std::string, uint64_t> read_cost;
};

// Runs the pass. Returns the first reader-creation or read error.
Result<PassResult> RunPass(const PassSpec& spec);

// CLOCK_MONOTONIC in nanoseconds.
uint64_t NowNs();

// google-benchmark's own context (date, host_name, num_cpus, caches,
// library_build_type, ...), from a one-read pass that reads nothing.
nlohmann::json GoogleBenchmarkContext();

// Measured cost of one pair of NowNs calls, in ns (median of a few runs of
// a tight loop): what timing one read adds to it.
double ClockPairCostNs();

}  // namespace flatbench::bench
