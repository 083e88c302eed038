#include "report/device_class.h"

#include <cmath>
#include <vector>

#include "common/results_schema.h"
#include "report/numbers.h"
#include "report/verdict/cells.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

constexpr double kClassReadBytes = 4096;

// Median 4 KiB reads/s of the run's device passes at `threads`, NaN when
// it has none.
double DeviceCellRate(const ResultSet& rs, int threads) {
  std::vector<double> rates;
  for (const auto& p : rs.passes) {
    if (p.error || p.cell.kind != r::kKindDevice || p.cell.threads != threads) {
      continue;
    }
    const double rate = p.Get(r::kReadsPerS);
    if (rate > 0) rates.push_back(rate);
  }
  return Summarize(std::move(rates)).median;
}

}  // namespace

const char* DeviceClassName(DeviceClass c) {
  switch (c) {
    case DeviceClass::kNvme:
      return "NVMe-class";
    case DeviceClass::kSata:
      return "SATA/slow SSD";
    case DeviceClass::kNetwork:
      return "network/virtio disk";
    case DeviceClass::kUnknown:
      break;
  }
  return "unknown device";
}

DeviceClass ClassifyDevice(double latency_at_1_s, double reads_per_s_at_32) {
  if (!(latency_at_1_s > 0)) return DeviceClass::kUnknown;
  if (latency_at_1_s <= kNvmeMaxLatencyS ||
      reads_per_s_at_32 >= kNvmeMinReadsPerSAt32) {
    return DeviceClass::kNvme;
  }
  if (latency_at_1_s < kSataMaxLatencyS) return DeviceClass::kSata;
  return DeviceClass::kNetwork;
}

DeviceClassReading DeviceClassOfProfile(const DeviceProfile& profile) {
  DeviceClassReading d;
  d.source = DeviceClassReading::Source::kProfile;
  d.profile = profile.source;
  d.latency_at_1_s =
      profile.LatencySeconds(1, kClassReadBytes, DeviceProfile::Bound::kMid);
  d.reads_per_s_at_32 = profile.ReadsPerS(32, kClassReadBytes);
  d.device_class = ClassifyDevice(d.latency_at_1_s, d.reads_per_s_at_32);
  return d;
}

DeviceClassReading DeviceClassOfRun(const ResultSet& results) {
  if (!results.device_profiles.empty()) {
    const auto& [file, profile] = *results.device_profiles.begin();
    DeviceClassReading d = DeviceClassOfProfile(profile);
    d.profile = "the device profile recorded in " + file;
    return d;
  }
  DeviceClassReading d;
  const double at_1 = DeviceCellRate(results, 1);
  d.latency_at_1_s = at_1 > 0 ? 1 / at_1 : NAN;
  d.reads_per_s_at_32 = DeviceCellRate(results, 32);
  if (std::isfinite(d.latency_at_1_s)) {
    d.source = DeviceClassReading::Source::kDeviceCells;
  }
  d.device_class = ClassifyDevice(d.latency_at_1_s, d.reads_per_s_at_32);
  return d;
}

double DepthScaling(const ResultSet& results, int threads) {
  if (threads == 1) return 1;
  if (!results.device_profiles.empty()) {
    const DeviceProfile& p = results.device_profiles.begin()->second;
    using Bound = DeviceProfile::Bound;
    return p.LatencySeconds(threads, kClassReadBytes, Bound::kMid) /
           p.LatencySeconds(1, kClassReadBytes, Bound::kMid);
  }
  return threads * DeviceCellRate(results, 1) /
         DeviceCellRate(results, threads);
}

std::string DeviceClassText(const DeviceClassReading& d) {
  using Source = DeviceClassReading::Source;
  if (d.source == Source::kNone) {
    return std::string(DeviceClassName(DeviceClass::kUnknown)) +
           " (no device profile and no device cell at 1 thread)";
  }
  std::string out = std::string(DeviceClassName(d.device_class)) + " (" +
                    Micros(d.latency_at_1_s * 1e9) +
                    " per 4 KiB read at depth 1, ";
  out += std::isfinite(d.reads_per_s_at_32)
             ? Count(d.reads_per_s_at_32) + " reads/s at depth 32"
             : std::string("no figure at depth 32");
  out += d.source == Source::kProfile
             ? "; from " + d.profile + ")"
             : "; from this run's own-file device cells at 1 and 32 "
               "threads)";
  return out;
}

}  // namespace flatbench::report
