#pragma once
// Peak number of reads in flight at once, computed after a pass from the
// [start, end] timestamps of the reads each thread timed (one in
// kLatencySampleEvery, pass.h), so it is a lower bound on the true peak.
//
// Why not a shared atomic counter: on warm reads (a few hundred ns) two
// contended read-modify-writes per read on one cache line would cost about as
// much as the read itself. Recording two timestamps into a thread-private,
// preallocated array shares nothing; the sweep below runs after the timed
// loop. Memory: 16 bytes per timed read.
//
// A read is in flight from just before the backend call to just after it
// returns (including time the thread is preempted or blocked on I/O), which is
// exactly what a per-read atomic increment/decrement would observe.

#include <cstdint>
#include <vector>

namespace flatbench::bench {

struct ReadInterval {
  uint64_t start_ns = 0;  // CLOCK_MONOTONIC, before the read.
  uint64_t end_ns = 0;    // After the read returned.
};

// The largest number of intervals that overlap at one instant. An interval
// ending at the same nanosecond another starts does not overlap it.
// `per_thread[t]` holds thread t's intervals; each is used only up to
// `used[t]` entries.
uint64_t PeakInFlight(const std::vector<std::vector<ReadInterval>>& per_thread,
                      const std::vector<uint64_t>& used);

// Mean reads in flight over a pass: the threads' loop spans (first read's
// start to last read's end, one interval per thread that read) summed, over
// the wall time from the earliest start to the latest end. A thread that
// finishes early stops counting, so a pass whose threads do not overlap
// shows a mean near one whatever its thread count. 0 when no time passed.
double MeanInFlight(const std::vector<ReadInterval>& loops);

}  // namespace flatbench::bench
