#include "bench/counters.h"

#include <algorithm>
#include <cstdio>

#include "common/results_ops.h"
#include "common/results_schema.h"

namespace flatbench::bench {
namespace {

double PerRead(uint64_t delta, uint64_t reads) {
  return reads ? static_cast<double>(delta) / static_cast<double>(reads) : 0;
}

double D(uint64_t v) { return static_cast<double>(v); }

// What every measured pass, backend or device, records.
void AddPassCounters(const PassResult& pass, int threads, int repetition,
                     double pass_start_s, nlohmann::json* entry) {
  nlohmann::json& e = *entry;
  e[KeyOf(results::kReadsPerS)] =
      pass.wall_seconds > 0 ? D(pass.reads) / pass.wall_seconds : 0.0;
  e[KeyOf(results::kLatMeanNs)] = pass.latency.Mean();
  e[KeyOf(results::kLatP50Ns)] = pass.latency.Percentile(0.50);
  e[KeyOf(results::kLatP99Ns)] = pass.latency.Percentile(0.99);
  e[KeyOf(results::kLatP999Ns)] = pass.latency.Percentile(0.999);
  e[KeyOf(results::kLatSampleEvery)] = D(kLatencySampleEvery);
  // The process's own, plus its backend's server processes' (PostgreSQL
  // reads in them).
  const double faults =
      PerRead(pass.after.major_faults - pass.before.major_faults +
                  pass.servers.major_faults,
              pass.reads);
  e[KeyOf(results::kMajorFaultsPerRead)] = faults;
  e[KeyOf(results::kMinorFaultsPerRead)] =
      PerRead(pass.after.minor_faults - pass.before.minor_faults +
                  pass.servers.minor_faults,
              pass.reads);
  // Absent when /proc/self/io, or a server process's io, is unreadable.
  double bytes = 0;
  if (pass.after.read_bytes_known && pass.servers.read_bytes_known) {
    bytes = PerRead(pass.after.read_bytes - pass.before.read_bytes +
                        pass.servers.read_bytes,
                    pass.reads);
    e[KeyOf(results::kBytesReadPerRead)] = bytes;
  }
  // Absent when a clock was unreadable or a server process exited.
  if (pass.before.cpu_known && pass.after.cpu_known && pass.servers.cpu_known &&
      pass.after.cpu_ns >= pass.before.cpu_ns) {
    const double cpu =
        PerRead(pass.after.cpu_ns - pass.before.cpu_ns + pass.servers.cpu_ns,
                pass.reads);
    if (cpu > 0) e[KeyOf(results::kCpuNsPerRead)] = cpu;
    // The rest of the host's: a clock tick's steps, so never below 0.
    if (cpu > 0 && pass.before.host_busy_known && pass.after.host_busy_known &&
        pass.after.host_busy_ns >= pass.before.host_busy_ns) {
      const double host = PerRead(
          pass.after.host_busy_ns - pass.before.host_busy_ns, pass.reads);
      e[KeyOf(results::kHostCpuNsPerRead)] = std::max(0.0, host - cpu);
    }
  }
  e[KeyOf(results::kStorageBound)] = (bytes >= kStorageBoundBytesPerRead ||
                                      faults >= kStorageBoundFaultsPerRead)
                                         ? 1.0
                                         : 0.0;
  e[KeyOf(results::kThreads)] = D(static_cast<uint64_t>(threads));
  e[KeyOf(results::kMeanInflight)] = pass.mean_inflight;
  e[KeyOf(results::kPeakInflight)] = D(pass.peak_inflight);
  e[KeyOf(results::kRepetition)] = D(static_cast<uint64_t>(repetition));
  e[KeyOf(results::kPassStartS)] = pass_start_s;
  e[KeyOf(results::kFoundFraction)] =
      pass.reads ? D(pass.found) / D(pass.reads) : 0.0;
}

}  // namespace

void AddCounters(const PassResult& pass, const CellFacts& facts,
                 nlohmann::json* entry) {
  AddPassCounters(pass, facts.threads, facts.repetition, facts.pass_start_s,
                  entry);
  nlohmann::json& e = *entry;
  e[KeyOf(results::kResidentFractionBefore)] = facts.resident_before;
  if (facts.resident_after_pass) {
    e[KeyOf(results::kResidentFractionAfterPass)] = *facts.resident_after_pass;
  }
  if (facts.resident_after_eviction) {
    e[KeyOf(results::kResidentFractionAfterEviction)] =
        *facts.resident_after_eviction;
  }
  e[KeyOf(results::kEvictionVerified)] = facts.eviction_verified ? 1.0 : 0.0;
  e[KeyOf(results::kDistinctKeys)] = D(facts.distinct_keys);
  e[KeyOf(results::kRssAfterOpenBytes)] = D(facts.rss_after_open);
  e[KeyOf(results::kRssAfterPassBytes)] = D(pass.rss_after_pass);
  e[KeyOf(results::kOpenSeconds)] = facts.open_seconds;
  e[KeyOf(results::kMetadataBytes)] = D(facts.metadata_bytes);
  e[KeyOf(results::kPreloadedBytes)] = D(facts.preloaded_bytes);
  e[KeyOf(results::kFilePages)] = D(facts.file_pages);
  if (facts.locked_bytes)
    e[KeyOf(results::kLockedBytes)] = D(*facts.locked_bytes);
  if (facts.device_requests && pass.reads > 0) {
    e[KeyOf(results::kDeviceRequestsPerRead)] =
        PerRead(*facts.device_requests, pass.reads);
  }
  if (!pass.read_cost.empty() && pass.reads > 0) {
    nlohmann::json& costs = e[std::string(results::kEntryBackendCounters)];
    costs = nlohmann::json::object();
    for (const auto& [name, total] : pass.read_cost) {
      costs[name] = PerRead(total, pass.reads);
    }
  }
  if (facts.device_reads_per_s) {
    const double dev = *facts.device_reads_per_s;
    e[KeyOf(results::kDeviceReadsPerS)] = dev;
    e[KeyOf(results::kIoEfficiency)] =
        dev > 0 ? e[KeyOf(results::kReadsPerS)].get<double>() / dev : 0.0;
  }
}

void AddDeviceCounters(const PassResult& pass, const DeviceFacts& facts,
                       nlohmann::json* entry) {
  AddPassCounters(pass, facts.threads, facts.repetition, facts.pass_start_s,
                  entry);
  nlohmann::json& e = *entry;
  e[KeyOf(results::kStorageBound)] = 1.0;  // By construction: O_DIRECT.
  e[KeyOf(results::kFilePages)] = D(facts.file_bytes / 4096);
  e[KeyOf(results::kDeviceFileBytes)] = D(facts.file_bytes);
}

std::string SummaryLine(const nlohmann::json& e) {
  char buf[400];
  const auto num = [&](const results::Counter& c) {
    return e.value(KeyOf(c), 0.0);
  };
  const std::string name =
      e.value(std::string(results::kEntryName), std::string("?"));
  if (e.contains(KeyOf(results::kStartupS))) {
    std::snprintf(
        buf, sizeof(buf),
        "%s: startup %.1f ms (%.1f-%.1f over %.0f probes), open "
        "%.1f ms",
        name.c_str(), num(results::kStartupS) * 1e3,
        num(results::kStartupMinS) * 1e3, num(results::kStartupMaxS) * 1e3,
        num(results::kStartupProbes), num(results::kOpenSeconds) * 1e3);
    return buf;
  }
  std::string extra;
  if (e.contains(KeyOf(results::kEntriesPerS))) {
    char b[64];
    std::snprintf(b, sizeof(b), ", %.0f entries/s (%.1f per scan)",
                  num(results::kEntriesPerS), num(results::kEntriesPerScan));
    extra = b;
  }
  if (e.contains(KeyOf(results::kKeysPerS))) {
    char b[96];
    std::snprintf(b, sizeof(b), ", %.0f keys/s (%.0f per call), depth %.1f",
                  num(results::kKeysPerS), num(results::kBatchSize),
                  num(results::kIoDepthMean));
    extra = b;
  }
  if (e.contains(KeyOf(results::kCpuNsPerRead))) {
    char b[64];
    std::snprintf(b, sizeof(b), ", %.2f us CPU/read",
                  num(results::kCpuNsPerRead) / 1e3);
    extra += b;
  }
  if (e.contains(KeyOf(results::kBatchIoEfficiency))) {
    char b[64];
    std::snprintf(b, sizeof(b),
                  ", keys/s = %.2f x own files' device rate at depth",
                  num(results::kBatchIoEfficiency));
    extra += b;
  }
  if (e.contains(KeyOf(results::kIoEfficiency))) {
    char b[64];
    std::snprintf(b, sizeof(b), ", hits/s = %.2f x own files' device rate",
                  num(results::kIoEfficiency));
    extra += b;
  }
  if (e.contains(KeyOf(results::kEvictionVerified)) &&
      num(results::kEvictionVerified) == 0) {
    extra += " (NOT VERIFIED)";
  }
  std::snprintf(
      buf, sizeof(buf),
      "%s: %.0f reads/s, p50 %.1f us, p99 %.1f us, %.2f faults/read "
      "(%.2f minor), %.0f B/read, in flight mean %.1f peak %.0f of "
      "%.0f%s",
      name.c_str(), num(results::kReadsPerS), num(results::kLatP50Ns) / 1e3,
      num(results::kLatP99Ns) / 1e3, num(results::kMajorFaultsPerRead),
      num(results::kMinorFaultsPerRead), num(results::kBytesReadPerRead),
      num(results::kMeanInflight), num(results::kPeakInflight),
      num(results::kThreads), extra.c_str());
  return buf;
}

}  // namespace flatbench::bench
