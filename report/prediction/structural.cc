#include "report/prediction/structural.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/results_schema.h"
#include "dataset/names.h"
#include "report/closed_rate.h"

namespace flatbench::report {

IoShape ShapeOf(const BackendGeometry& g, flatbench::Table table,
                const std::string& kind, uint64_t ram_bytes,
                uint64_t reads_per_pass) {
  const ModelPrediction m = Predict(g, ram_bytes, reads_per_pass);
  IoShape s;
  s.unit_pages = std::max(1.0, m.at(table).data_pages);
  s.pages = kind == results::kKindHit ? m.at(table).hit_reads
                                      : m.at(table).miss_reads;
  return s;
}

CpuCost CalibrateCpu(const ResultSet& rs, const std::string& backend,
                     const std::string& table, const std::string& kind,
                     double unit_pages, const DeviceProfile& profile) {
  using Bound = DeviceProfile::Bound;
  const double size_factor =
      profile.LatencySeconds(1, unit_pages * kPageBytes, Bound::kMid) /
      profile.LatencySeconds(1, kPageBytes, Bound::kMid);
  std::vector<double> costs;
  for (const auto& p : rs.passes) {
    const CellKey& k = p.cell;
    if (k.backend != backend || k.table != table || k.kind != kind ||
        k.mode != results::kModeCold || k.threads != 1 || p.error) {
      continue;
    }
    const double rate = p.Get(results::kReadsPerS);
    const double bytes = p.Get(results::kBytesReadPerRead);
    if (!(rate > 0) || !std::isfinite(bytes)) continue;
    // The own files' 4 KiB latency at that moment: the hit pass carries
    // its device cell's rate; a miss pass takes the same repetition's.
    double device_rate = p.Get(results::kDeviceReadsPerS);
    if (!(device_rate > 0)) {
      for (const auto& d : rs.passes) {
        if (d.cell.backend == backend && d.cell.table == table &&
            d.cell.kind == results::kKindDevice && d.cell.mode == k.mode &&
            d.cell.threads == 1 && d.rep == p.rep) {
          device_rate = d.Get(results::kReadsPerS);
        }
      }
    }
    const double latency =
        device_rate > 0 ? 1.0 / device_rate
                        : profile.LatencySeconds(1, kPageBytes, Bound::kMid);
    const double ops = bytes / kPageBytes / unit_pages;
    costs.push_back(std::max(0.0, 1.0 / rate - ops * latency * size_factor));
  }
  CpuCost c;
  c.source = CpuCost::Source::kResidual;
  c.passes = static_cast<int>(costs.size());
  if (costs.empty()) return c;
  c.mid = Median(costs);
  c.low = *std::min_element(costs.begin(), costs.end());
  c.high = *std::max_element(costs.begin(), costs.end());
  return c;
}

namespace {

// MeasuredCpu at exactly `threads`: passes == 0 when none carries it.
CpuCost MeasuredCpuAt(const ResultSet& rs, const std::string& backend,
                      const std::string& table, const std::string& kind,
                      int threads) {
  std::vector<double> cold, warm, host;
  for (const auto& p : rs.passes) {
    const CellKey& k = p.cell;
    if (k.backend != backend || k.table != table || k.kind != kind ||
        k.threads != threads || p.error) {
      continue;
    }
    const double ns = p.Get(results::kCpuNsPerRead);
    if (!(ns > 0) || !std::isfinite(ns)) continue;
    if (k.mode == results::kModeCold) {
      cold.push_back(ns * 1e-9);
      const double o = p.Get(results::kHostCpuNsPerRead);
      if (o >= 0 && std::isfinite(o)) host.push_back(o * 1e-9);
    }
    if (k.mode == results::kModeWarm) warm.push_back(ns * 1e-9);
  }
  CpuCost c;
  c.source = CpuCost::Source::kMeasured;
  c.threads = threads;
  c.passes = static_cast<int>(cold.size());
  if (cold.empty()) return c;
  c.mid = Median(cold);
  c.low = *std::min_element(cold.begin(), cold.end());
  c.high = *std::max_element(cold.begin(), cold.end());
  c.warm_passes = static_cast<int>(warm.size());
  if (!warm.empty()) c.warm = Median(warm);
  // o only where every cold pass carries it: a median over some of them
  // would price other passes than c's.
  if (host.size() == cold.size()) c.host = Median(host);
  return c;
}

}  // namespace

CpuCost MeasuredCpu(const ResultSet& rs, const std::string& backend,
                    const std::string& table, const std::string& kind,
                    int threads) {
  CpuCost c = MeasuredCpuAt(rs, backend, table, kind, threads);
  if (c.passes > 0 || threads == 1) return c;
  return MeasuredCpuAt(rs, backend, table, kind, 1);
}

CpuCost CpuPerRead(const ResultSet& rs, const std::string& backend,
                   const std::string& table, const std::string& kind,
                   double unit_pages, const DeviceProfile& profile,
                   int threads) {
  CpuCost c = MeasuredCpu(rs, backend, table, kind, threads);
  if (c.passes > 0) return c;
  return CalibrateCpu(rs, backend, table, kind, unit_pages, profile);
}

CpuCost OnDevice(CpuCost c, const IoShape& shape, int threads,
                 const DeviceProfile& from, const DeviceProfile& to) {
  const double bytes = shape.ReadBytes();
  const double shift = shape.Ops() * (to.CpuSeconds(threads, bytes) -
                                      from.CpuSeconds(threads, bytes));
  if (std::isfinite(shift)) {
    c.mid = std::max(0.0, c.mid + shift);
    c.low = std::max(0.0, c.low + shift);
    c.high = std::max(0.0, c.high + shift);
  }
  if (std::isfinite(c.host)) {
    auto h = [&](const DeviceProfile& p) {
      const double v = p.HostCpuSeconds(threads, bytes);
      return std::isfinite(v) ? v : 0.0;
    };
    c.host = std::max(0.0, c.host + shape.Ops() * (h(to) - h(from)));
  }
  return c;
}

double HostCpuPerRead(const IoShape& shape, const CpuCost& cpu, int threads,
                      const DeviceProfile& profile) {
  if (std::isfinite(cpu.host)) return cpu.host;
  const double h = profile.HostCpuSeconds(threads, shape.ReadBytes());
  return std::isfinite(h) ? shape.Ops() * h : 0.0;
}

double DeviceDelay(int threads, double latency, double reader_cpu,
                   double host_cpu, double cpus) {
  const double target = threads / latency;
  const double demand = (std::isfinite(reader_cpu) ? reader_cpu : 0) +
                        (std::isfinite(host_cpu) ? host_cpu : 0);
  if (!(target > 0) || !std::isfinite(target) || !(demand > 0)) {
    return latency;
  }
  if (!(ClosedRate(threads, demand, cpus, 0) > target)) return 0;
  // The rate falls as the delay grows; at threads x latency it is at most
  // 1 / latency, below the target.
  double low = 0, high = threads * latency;
  for (int i = 0; i < 60; ++i) {
    const double mid = (low + high) / 2;
    (ClosedRate(threads, demand, cpus, mid) > target ? low : high) = mid;
  }
  return (low + high) / 2;
}

RatePrediction PredictRate(const IoShape& shape, const CpuCost& cpu,
                           int threads, const DeviceProfile& profile,
                           double own_latency) {
  using Bound = DeviceProfile::Bound;
  const double t = threads;
  const double bytes = shape.ReadBytes();
  // The rest of the host's CPU per read takes from the same cpus: as
  // measured, or else the device's own work on the host's cores (a loop
  // device's worker), each storage read's share.
  const double host = HostCpuPerRead(shape, cpu, threads, profile);
  auto rate = [&](double c, Bound b, bool* cpu_bound) {
    const double latency =
        own_latency > 0
            ? own_latency * profile.LatencySeconds(t, bytes, Bound::kMid) /
                  profile.LatencySeconds(t, kPageBytes, Bound::kMid)
            : profile.LatencySeconds(t, bytes, b);
    // Each storage read's time that is no host CPU: the latency the
    // profile's readers saw, less the CPU they and the device spent on the
    // host's cores and their wait for those cores.
    const double delay =
        shape.Ops() *
        DeviceDelay(threads, latency, profile.CpuSeconds(t, bytes),
                    profile.HostCpuSeconds(t, bytes), profile.cpus);
    const double demand = c + host;
    // No cost at all (no CPU measured and no storage read): no prediction,
    // rather than an infinite rate.
    if (!(demand + delay > 0) || !std::isfinite(delay)) {
      if (cpu_bound != nullptr) *cpu_bound = false;
      return std::numeric_limits<double>::quiet_NaN();
    }
    if (cpu_bound != nullptr) {
      *cpu_bound = demand > 0 && profile.cpus / demand < t / (demand + delay);
    }
    return ClosedRate(threads, demand, profile.cpus, delay);
  };
  RatePrediction r;
  r.rate = rate(cpu.mid, Bound::kMid, &r.cpu_bound);
  r.interval.low = rate(cpu.high, Bound::kSlow, nullptr);
  r.interval.high = rate(cpu.low, Bound::kFast, nullptr);
  return r;
}

std::string GeometryBackend(const std::string& backend) {
  return dataset::StoreOf(backend);
}

}  // namespace flatbench::report
