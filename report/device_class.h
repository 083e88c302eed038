#pragma once
// The device class a run's figures are for, named in one place
// (RESEARCH.md §7, "The device class"): from the 4 KiB random-read latency
// at queue depth 1 and the 4 KiB reads/s at depth 32. A cold read waits
// on the device, or on the CPU where the device is fast, so a format's
// answer may differ by class.
//
//   NVMe-class            latency at depth 1 <= 15 us, or >= 150,000
//                         reads/s at depth 32 (more than one SATA link
//                         carries);
//   SATA/slow SSD         otherwise, latency at depth 1 below 30 us;
//   network/virtio disk   otherwise.
//
// The figures come from the device profile the results recorded (bench
// --device-profile: its 4 KiB cells' mean latency at depth 1 and reads/s
// at depth 32) or, without one, from the bench's own device cells (the
// median over every backend's own-file device passes at 1 thread, as
// 1 / reads/s, and at 32 threads).

#include <string>

#include "common/device_profile.h"
#include "report/run_data.h"

namespace flatbench::report {

enum class DeviceClass { kUnknown, kNvme, kSata, kNetwork };

// The classes' bounds.
inline constexpr double kNvmeMaxLatencyS = 15e-6;
inline constexpr double kNvmeMinReadsPerSAt32 = 150000;
inline constexpr double kSataMaxLatencyS = 30e-6;

// "NVMe-class", "SATA/slow SSD", "network/virtio disk", "unknown device".
const char* DeviceClassName(DeviceClass c);

// The class of a device with this depth-1 latency (seconds) and depth-32
// rate; a NaN rate classifies by the latency alone, a NaN latency is
// kUnknown.
DeviceClass ClassifyDevice(double latency_at_1_s, double reads_per_s_at_32);

struct DeviceClassReading {
  DeviceClass device_class = DeviceClass::kUnknown;
  double latency_at_1_s = 0;     // NaN when not measured.
  double reads_per_s_at_32 = 0;  // NaN when not measured.
  enum class Source { kNone, kProfile, kDeviceCells } source = Source::kNone;
  // kProfile: where the profile came from ("device profile P.json", "the
  // device profile recorded in R.json").
  std::string profile;
};

// From a device profile.
DeviceClassReading DeviceClassOfProfile(const DeviceProfile& profile);
// A run's: its recorded device profile when it has one (the first, by
// results file), else its device cells; kNone when it has neither.
DeviceClassReading DeviceClassOfRun(const ResultSet& results);

// How a read's wait grows with the reads in flight on the run's device:
// L(T) / L(1), the mean latency of a 4 KiB read at T in flight over that
// at 1, from the same source as DeviceClassOfRun (the profile's cells, or
// T x D(1) / D(T) of the device cells' medians); 1 at T = 1, NaN when the
// run has no figure at T.
double DepthScaling(const ResultSet& results, int threads);

// "network/virtio disk (45.0 µs per 4 KiB read at depth 1, 67,532
// reads/s at depth 32; from device profile P.json)", or why there is
// no class.
std::string DeviceClassText(const DeviceClassReading& reading);

}  // namespace flatbench::report
