#pragma once
// Reads in flight over a pass, from each thread's loop span: its first
// read's start to its last read's end. A pass's thread has one read in
// flight at a time and is inside its loop of reads from the first to the
// last, so the number of threads inside their spans at an instant is the
// number of reads in flight then, up to the loop's own overhead between
// reads (a thread preempted between two reads still counts).
//
// The mean and the peak are that one count's time average and maximum, so
// the peak is never below the mean. Every read counts: the spans take a
// clock read at the first and after the last read only, so timing does not
// tax the faster engine. A figure over the reads timed for latency (one in
// kLatencySampleEvery, pass.h) would not do: at any instant only about one
// in that many of the reads in flight is a timed one, so their overlap
// says little about concurrency, and falls below the mean.

#include <cstdint>
#include <vector>

namespace flatbench::bench {

// One thread's loop of reads, CLOCK_MONOTONIC.
struct LoopSpan {
  uint64_t start_ns = 0;  // Before its first read.
  uint64_t end_ns = 0;    // After its last read returned.
};

// The largest number of spans that overlap at one instant. A span ending
// at the same nanosecond another starts does not overlap it.
uint64_t PeakInFlight(const std::vector<LoopSpan>& loops);

// The spans summed over the wall time from the earliest start to the latest
// end: the time average of the count PeakInFlight maximizes, so never
// above it. A thread that finishes early stops counting, so a pass whose
// threads do not overlap shows a mean near one whatever its thread count.
// 0 when no time passed.
double MeanInFlight(const std::vector<LoopSpan>& loops);

}  // namespace flatbench::bench
