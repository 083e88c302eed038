#pragma once
// The structural prediction: each backend's reads/s in a cold cell from
// the structure of its reads and the device that serves them, not from a
// trend. Inputs:
//
//   geometry   the geometric model's 4 KiB pages per read (model.h) and the
//              pages one data unit spans, so a read costs
//              ops = pages / unit pages storage reads of unit pages x 4 KiB
//              (RocksDB's 6-10 KB blocks: one read of 8-12 KiB; an arena
//              block or LMDB page: one 4 KiB read);
//   CPU        c, the time per read that is not waiting on the device (CPU
//              and the cold cells' fault handling), calibrated from the
//              one-thread cold passes of a measured size: each pass's
//              1 / reads_per_s less its measured storage reads priced at
//              the latency of its own files' adjacent device cell (the same
//              table's hit device cell for misses; the profile where the
//              run had no device cells);
//   device     the device profile (bench/device_profile.h): mean latency
//              L(q, s) at queue depth q and read size s, interpolated
//              linearly in size and in log2(depth).
//
// With T threads each read takes c + ops x L(T, s), and the host's cpus
// bound the rate by CPU alone:
//
//   reads/s = min(T / (c + ops x L(T, s)), cpus / c)
//
// The interval takes c at the lowest and highest of its calibration passes
// and L at the device profile's fastest and slowest round (mean latency
// scaled by the round's rate against the cell's), together, so it holds
// both spreads at once.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "report/interval.h"
#include "report/model.h"
#include "report/results.h"

namespace flatbench::report {

struct DeviceProfileCell {
  int depth = 0;
  double read_bytes = 0;
  double reads_per_s = 0, reads_per_s_low = 0, reads_per_s_high = 0;
  double lat_mean_ns = 0, lat_p50_ns = 0, lat_p99_ns = 0;
};

struct DeviceProfile {
  std::string source;  // Where it was read from, for the report.
  std::string dir, filesystem, measured_at;
  int cpus = 0;
  double load_average = 0;
  std::vector<DeviceProfileCell> cells;

  enum class Bound { kMid, kFast, kSlow };
  // Mean latency in seconds of one read of `bytes` at queue depth `depth`.
  double LatencySeconds(double depth, double bytes, Bound b) const;
  // Reads/s at that depth and size: depth / LatencySeconds.
  double ReadsPerS(double depth, double bytes) const {
    return depth / LatencySeconds(depth, bytes, Bound::kMid);
  }
};

// Parses a profile document (SWEEP_FORMAT.md, "Device profile keys");
// `where` names it in errors. kCorruption for a missing or mistyped key,
// another version, or a queue depth or read size of the contract missing.
Result<DeviceProfile> ParseDeviceProfile(const nlohmann::json& doc,
                                         const std::string& where);

// How one read of a cell uses the device, from the geometric model.
struct IoShape {
  double pages = 0;       // 4 KiB pages read from storage per read.
  double unit_pages = 1;  // Pages one data unit read spans.
  double Ops() const { return pages / unit_pages; }
  double ReadBytes() const { return unit_pages * kPageBytes; }
};
IoShape ShapeOf(const BackendGeometry& g, flatbench::Table table,
                const std::string& kind, uint64_t ram_bytes,
                uint64_t reads_per_pass);

// c of one (backend, table, kind): seconds per read not spent waiting on
// the device; mid is the median over the calibration passes.
struct CpuCost {
  double mid = 0, low = 0, high = 0;
  int passes = 0;
};
// From `rs`'s one-thread cold passes of the cell; unit_pages prices their
// measured bytes read. passes == 0 when the run has none.
CpuCost CalibrateCpu(const ResultSet& rs, const std::string& backend,
                     const std::string& table, const std::string& kind,
                     double unit_pages, const DeviceProfile& profile);

struct RatePrediction {
  double rate = 0;
  Interval interval;       // low <= rate <= high.
  bool cpu_bound = false;  // cpus / c is the lower of the two bounds.
};
// `own_latency` > 0: the mean latency (seconds) of a 4 KiB read at this
// depth on the backend's own files (T / its device cells' reads/s), used in
// place of the profile's, which then only scales it to the read size; the
// interval then holds c's spread alone.
RatePrediction PredictRate(const IoShape& shape, const CpuCost& cpu,
                           int threads, const DeviceProfile& profile,
                           double own_latency = 0);

// The backend whose geometry a read-path variant uses: "arena+cache" ->
// "arena".
std::string GeometryBackend(const std::string& backend);

}  // namespace flatbench::report
