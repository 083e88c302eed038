#pragma once
// Process-wide I/O and memory counters, sampled before and after a pass.

#include <cstdint>

namespace flatbench::bench {

struct IoSnapshot {
  uint64_t major_faults = 0;      // getrusage(RUSAGE_SELF).ru_majflt
  uint64_t minor_faults = 0;      // getrusage(RUSAGE_SELF).ru_minflt
  uint64_t read_bytes = 0;        // /proc/self/io read_bytes (storage layer)
  bool read_bytes_known = false;  // false when /proc/self/io is unreadable
};

// All threads of the process, including threads that already exited.
IoSnapshot TakeIoSnapshot();
// Resident set size from /proc/self/statm, in bytes (0 if unreadable).
uint64_t RssBytes();
// Resident set size of process `pid` from /proc/<pid>/statm (0 if it is
// gone or unreadable).
uint64_t RssBytesOf(int pid);

}  // namespace flatbench::bench
