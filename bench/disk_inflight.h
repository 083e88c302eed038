#pragma once
// The I/O depth a pass reached at the device, for backends that do not
// count their own submissions (batch cells, batch_pass.h): the in-flight
// count of the block device holding the backend's files ("I/Os currently
// in progress" of /proc/diskstats), sampled about once a millisecond by a
// thread of its own while the pass runs. Every process's I/O on that
// device counts, so on a shared device it bounds the pass's own depth from
// above; a sample catches what is in flight at that instant, so a short
// peak between samples is missed.
//
// The sampler's thread belongs to the process whose CPU time a pass
// counts: Stop() returns that thread's own CPU time, for the pass to
// subtract.

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace flatbench::bench {

// What a sampler saw between Start and Stop.
struct DiskInflight {
  uint64_t samples = 0;
  double mean = 0;  // Mean in-flight count over the samples.
  uint64_t max = 0;
  uint64_t sampler_cpu_ns = 0;  // The sampling thread's CPU time.
};

// Two fields of one device's line in /proc/diskstats.
struct DiskCounts {
  uint64_t reads_completed = 0;  // The 4th column: requests, after merging.
  uint64_t in_flight = 0;        // The 12th: "I/Os currently in progress".
};

// The fields of device major:minor's line in `text` (/proc/diskstats);
// nullopt when the device has no line or its line is malformed.
std::optional<DiskCounts> DiskstatsOf(std::string_view text, unsigned major,
                                      unsigned minor);
// DiskstatsOf(...)->in_flight.
std::optional<uint64_t> DiskstatsInFlight(std::string_view text, unsigned major,
                                          unsigned minor);

// The read requests the block device holding `path` has completed, read
// before and after a pass: how many requests the pass cost the device,
// each of whatever size the kernel made it (one 12 KiB pread is one; a
// device cell's 4 KiB read is one). Every process's reads on that device
// count, so on a shared device it bounds the pass's own from above.
class DeviceReadCounter {
 public:
  // known() is false when the device cannot be found (as for
  // DiskInflightSampler).
  explicit DeviceReadCounter(const std::string& path);
  ~DeviceReadCounter();
  DeviceReadCounter(const DeviceReadCounter&) = delete;
  DeviceReadCounter& operator=(const DeviceReadCounter&) = delete;

  bool known() const { return fd_ >= 0; }
  // The device's reads completed so far; nullopt when unknown or unreadable.
  std::optional<uint64_t> Now() const;

 private:
  unsigned major_ = 0, minor_ = 0;
  int fd_ = -1;
};

// Not thread-safe: Start and Stop from one thread.
class DiskInflightSampler {
 public:
  // Finds the device holding `path` (its st_dev) in /proc/diskstats;
  // known() is false when it cannot (a missing path, no /proc/diskstats,
  // a filesystem with no block device such as tmpfs or an overlay).
  explicit DiskInflightSampler(const std::string& path);
  ~DiskInflightSampler();
  DiskInflightSampler(const DiskInflightSampler&) = delete;
  DiskInflightSampler& operator=(const DiskInflightSampler&) = delete;

  bool known() const { return known_; }
  // Starts sampling. REQUIRES: known(), not started.
  void Start();
  // Stops and returns what was seen (all zero when not started).
  DiskInflight Stop();

 private:
  void Loop();
  bool known_ = false;
  unsigned major_ = 0, minor_ = 0;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  DiskInflight seen_;  // Written by the thread; read after join.
  double sum_ = 0;
};

}  // namespace flatbench::bench
