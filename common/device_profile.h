#pragma once
// A device profile document (`flatbench device --out`, common/sweep_schema.h
// "A device profile") as its readers see it: checked key by key and parsed,
// with the mean latency at any queue depth and read size. `bench` checks a
// profile before recording it in its results (results_schema.h
// kRecordedDeviceProfile); `report` reads one from a sweep, a results file
// or --device-profile to price reads with (report/prediction/structural.h). The
// measurement that writes it is bench/device_profile.h.

#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"

namespace flatbench {

struct DeviceProfileCell {
  int depth = 0;
  double read_bytes = 0;
  double reads_per_s = 0, reads_per_s_low = 0, reads_per_s_high = 0;
  double lat_mean_ns = 0, lat_p50_ns = 0, lat_p99_ns = 0;
  // The readers' CPU per read, and the rest of the host's busy CPU per
  // read: NaN in a profile from before they were recorded.
  double cpu_ns_per_read = std::numeric_limits<double>::quiet_NaN();
  double host_cpu_ns_per_read = std::numeric_limits<double>::quiet_NaN();
};

struct DeviceProfile {
  std::string source;  // Where it was read from, for the report.
  std::string dir, filesystem, measured_at;
  int cpus = 0;
  double load_average = 0;
  std::vector<DeviceProfileCell> cells;

  enum class Bound { kMid, kFast, kSlow };
  // Mean latency in seconds of one read of `bytes` at queue depth `depth`,
  // interpolated linearly in size and in log2(depth), clamped at the
  // measured ends. kFast and kSlow scale each cell's mean latency by its
  // rate against its fastest and slowest round's.
  double LatencySeconds(double depth, double bytes, Bound b) const;
  // The host's CPU time outside the readers per read of `bytes` at depth
  // `depth` (the device's own work on the host's cores), seconds,
  // interpolated as LatencySeconds; 0 for a profile without it.
  double HostCpuSeconds(double depth, double bytes) const;
  // The readers' own CPU time per read of `bytes` at depth `depth` (the
  // kernel's read path for this device: system call, block layer, the
  // wait's sleep and wake-up), seconds, interpolated as LatencySeconds;
  // NaN for a profile without it.
  double CpuSeconds(double depth, double bytes) const;
  // Reads/s at that depth and size: depth / LatencySeconds.
  double ReadsPerS(double depth, double bytes) const {
    return depth / LatencySeconds(depth, bytes, Bound::kMid);
  }
};

// Parses a profile document; `where` names it in errors. kCorruption for
// a missing or mistyped key (named), another version, a cell whose rates
// and latency are not positive or whose rounds' range does not hold its
// rate, a queue depth or read size of the contract missing, or cpus below 1.
Result<DeviceProfile> ParseDeviceProfile(const nlohmann::json& doc,
                                         const std::string& where);

// A profile file: the document as written, and the profile parsed from it.
struct DeviceProfileFile {
  nlohmann::json doc;
  DeviceProfile profile;
};

// Reads and checks the profile file at `path`; every error names it as
// "device profile PATH". kMissingInput (66) when there is no such file,
// kIOError (74) when it cannot be read, kCorruption (65) when it is not
// JSON or ParseDeviceProfile refuses it.
Result<DeviceProfileFile> LoadDeviceProfileFile(const std::string& path);

}  // namespace flatbench
