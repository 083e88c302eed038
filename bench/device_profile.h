#pragma once
// The device profile of a directory: what its storage delivers to random
// reads, independent of any dataset, so that a structural prediction
// (report/prediction/structural.h) can price each backend's reads on this host
// or on another one. A scratch file is written in the directory, read at random
// 4 KiB-aligned offsets with O_DIRECT at each queue depth (that many reader
// threads, one read in flight each) and read size of the contract
// (common/sweep_schema.h kProfileQueueDepths, kProfileReadBytes), in
// `rounds` interleaved rounds so drift spreads over the cells and their
// spread shows, and removed. Its readers parse the document with
// common/device_profile.h.
//
// The scratch file is freshly written, and on virtualized or tiered
// storage recent files can be served faster than old ones (RESEARCH.md
// section 8a): the profile is the device's rate for new data.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "common/status.h"

namespace flatbench::bench {

struct DeviceProfileOptions {
  std::string dir;
  uint64_t file_bytes = 1ULL << 30;  // Scratch file size.
  double seconds = 60;               // Whole measurement, all cells.
  int rounds = 3;
  uint64_t seed = 1;
  bool progress = true;  // Progress and ETA lines on stderr.
};

// The scratch file's name inside the directory.
inline constexpr char kScratchName[] = ".flatbench-device-scratch";

// Measures and returns the profile document (SWEEP_FORMAT.md, "Device
// profile keys"). Errors: kMissingInput (no such directory), kUsage (not a
// directory, or option values out of range), kRefuseOverwrite (too little
// free disk for the scratch file), kIOError (cannot write: read-only,
// permission, disk full; no O_DIRECT; a read failed). The scratch file is
// removed on every path, including a stop signal (kIOError then).
Result<nlohmann::json> MeasureDeviceProfile(const DeviceProfileOptions& o);

}  // namespace flatbench::bench
