#pragma once
// The physical limit: 4 KiB O_DIRECT random reads from the storage device
// under the data directory, one read in flight per thread, at the same
// thread counts as the backends. Reported as `device/raw/hit/cold/...` rows.
//
// The reads go to a scratch file of `bytes` bytes (a multiple of 4 KiB, at
// least one block) written with non-zero data in the data directory, synced,
// evicted from the page cache, and deleted afterwards. O_DIRECT bypasses the
// page cache, so every read reaches the device (or its own cache, which a
// scratch file smaller than the device cache can hit: make it large).
// Offsets follow a seeded permutation of the file's blocks, so a pass reads
// distinct blocks while the file holds enough of them.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace flatbench::bench {

inline constexpr uint64_t kDeviceBlock = 4096;
inline constexpr uint64_t kDefaultDeviceBytes = 4ULL << 30;

struct DeviceOptions {
  std::string dir;  // Where the scratch file goes (the data directory).
  uint64_t bytes = kDefaultDeviceBytes;
  std::vector<int> threads = {1, 8, 32};
  uint64_t reads_per_pass = 20'000;
  int repetitions = 3;
  uint64_t seed = 0x646576696365ULL;
  double eviction_bound = 0.01;
  bool progress = true;
};

struct DeviceRun {
  nlohmann::json benchmarks = nlohmann::json::array();
  nlohmann::json context = nlohmann::json::object();  // google-benchmark's
  // "measured: ..." or "skipped: <reason>" (tmpfs, no O_DIRECT, no space).
  std::string status;
};

// Errors: kIOError when the scratch file cannot be written or read.
// A filesystem that cannot do O_DIRECT is not an error: it is reported in
// DeviceRun::status with no rows.
Result<DeviceRun> MeasureDevice(const DeviceOptions& options);

// The scratch file's path inside `dir`.
std::string DeviceScratchPath(const std::string& dir);

}  // namespace flatbench::bench
