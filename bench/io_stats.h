#pragma once
// Process-wide I/O and memory counters, sampled before and after a pass:
// the benchmark's own process, and the server processes a client/server
// backend (PostgreSQL) does its reads in.

#include <cstdint>
#include <map>
#include <vector>

namespace flatbench::bench {

struct IoSnapshot {
  uint64_t major_faults = 0;      // getrusage(RUSAGE_SELF).ru_majflt
  uint64_t minor_faults = 0;      // getrusage(RUSAGE_SELF).ru_minflt
  uint64_t read_bytes = 0;        // /proc/self/io read_bytes (storage layer)
  bool read_bytes_known = false;  // false when /proc/self/io is unreadable
  // CPU time, user and system, in nanoseconds:
  // CLOCK_PROCESS_CPUTIME_ID.
  uint64_t cpu_ns = 0;
  bool cpu_known = false;  // false when the clock could not be read
  // The whole host's busy CPU time so far, in nanoseconds (HostBusyNs);
  // TakeIoSnapshot only, in steps of a clock tick (10 ms at the usual 100
  // per second).
  uint64_t host_busy_ns = 0;
  bool host_busy_known = false;  // false when /proc/stat was unreadable
};

// All threads of the process, including threads that already exited.
IoSnapshot TakeIoSnapshot();

// The host's busy CPU time so far, in nanoseconds, over every CPU:
// /proc/stat's first line, every state but idle, iowait and steal (a
// guest's time its host ran something else). False when it cannot be read.
bool HostBusyNs(uint64_t* ns);

// The same counters of other processes, by pid: faults and CPU time from
// /proc/<pid>/stat (minflt, majflt, utime + stime, in clock ticks, so
// 10 ms steps at the usual 100 per second), read_bytes from
// /proc/<pid>/io. A process that is gone or whose stat is unreadable has
// no entry; one whose io is unreadable (another user's, without the right
// to trace it) has read_bytes_known false.
std::map<int, IoSnapshot> TakeProcessSnapshots(const std::vector<int>& pids);

// What the processes present in both snapshots did in between, summed.
// read_bytes_known: every one of them had a readable io at both ends, and
// no process of `before` vanished (its counts would be lost); cpu_known:
// no process of `before` vanished.
IoSnapshot ProcessDelta(const std::map<int, IoSnapshot>& before,
                        const std::map<int, IoSnapshot>& after);

// Resident set size from /proc/self/statm, in bytes (0 if unreadable).
uint64_t RssBytes();

// Proportional set size of process `pid` from /proc/<pid>/smaps_rollup, in
// bytes: each page it maps divided by the number of processes mapping it,
// so pages shared by several processes (PostgreSQL's shared buffers)
// count once over all of them. 0 if it is gone or unreadable.
uint64_t PssBytesOf(int pid);

// RssBytes() plus the Pss of each of `servers`: the memory of a backend
// together with its server processes.
uint64_t MemoryBytes(const std::vector<int>& servers);

}  // namespace flatbench::bench
