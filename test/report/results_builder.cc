#include "test/report/results_builder.h"

#include <cmath>
#include <set>
#include <stdexcept>

#include "common/results_ops.h"
#include "common/results_schema.h"

namespace flatbench::report::testing {
namespace {

namespace r = flatbench::results;
using nlohmann::json;

struct PassSpec {
  std::string backend, table, kind, mode;
  int threads = 1, rep = 0;
  double reads_per_s = 0;
  double device_reads_per_s = 0;  // Cold hits: the adjacent device cell.
  // Batch cells: keys per call (and in cold modes device_reads_per_s is
  // the device cell's at that depth).
  int batch_size = 0;
  int order = 0;
  double disk_bytes = 0;  // The backend's, as its context says.
};

// The value each counter takes on a healthy pass.
double Value(const r::Counter& c, const PassSpec& p) {
  const bool hit = p.kind == r::kKindHit;
  const bool device = p.kind == r::kKindDevice;
  const bool warm = p.mode == r::kModeWarm;
  const double lat_ns = 1e9 * p.threads / p.reads_per_s;
  const std::string_view n = c.name;
  if (p.kind == r::kKindStartup) {
    if (n == r::kStartupS.name) return 0.2 + 0.01 * p.rep;
    if (n == r::kStartupMinS.name) return 0.15;
    if (n == r::kStartupMaxS.name) return 0.4;
    if (n == r::kStartupProbes.name) return 5;
    if (n == r::kOpenSeconds.name) return 0.05;
  }
  if (p.kind == r::kKindBatch) {
    const double b = p.batch_size;
    const double keys = p.reads_per_s * b;
    if (n == r::kBatchSize.name) return b;
    if (n == r::kKeysPerS.name) return keys;
    if (n == r::kCpuNsPerRead.name) return 3000 * b;
    if (n == r::kCpuNsPerKey.name) return 3000;
    if (n == r::kBytesReadPerRead.name) return warm ? 0 : 4600 * b;
    if (n == r::kStorageReadsPerKey.name) return warm ? 0 : 4600.0 / 4096;
    if (n == r::kIoDepthMax.name) return warm ? 0 : b;
    if (n == r::kIoDepthMean.name) return warm ? 0 : b * 0.9;
    if (n == r::kIoDepthSource.name) return 1;
    if (n == r::kBatchDeviceReadsPerS.name) return p.device_reads_per_s;
    if (n == r::kBatchIoEfficiency.name) return keys / p.device_reads_per_s;
    if (n == r::kFoundFraction.name) return 1;
    if (n == r::kDistinctKeys.name) return 10000.0 * p.threads * b;
  }
  if (n == r::kScanLength.name) return 100;
  if (n == r::kEntriesPerScan.name) return 100;
  if (n == r::kEntriesPerS.name) return p.reads_per_s * 100;
  // The same pairs from every backend: one checksum per table and rep.
  if (n == r::kScanChecksum.name) {
    return 1000.0 * p.rep + (p.table == "account" ? 1 : 2) + p.threads;
  }
  if (n == r::kReadsPerS.name) return p.reads_per_s;
  if (n == r::kLatMeanNs.name) return lat_ns;
  if (n == r::kLatP50Ns.name) return lat_ns * 0.9;
  if (n == r::kLatP99Ns.name) return lat_ns * 3;
  if (n == r::kLatP999Ns.name) return lat_ns * 6;
  if (n == r::kLatSampleEvery.name) return 16;
  if (n == r::kMajorFaultsPerRead.name) return warm ? 0 : hit ? 1.1 : 0.4;
  if (n == r::kMinorFaultsPerRead.name) return warm ? 0.001 : 0.1;
  if (n == r::kBytesReadPerRead.name) {
    return device ? 4096 : warm ? 0 : hit ? 4600 : 1700;
  }
  // After reopening, metadata pages are resident again.
  if (n == r::kResidentFractionBefore.name) return warm ? 1.0 : 0.03;
  if (n == r::kResidentFractionAfterEviction.name) return 0.002;
  if (n == r::kResidentFractionAfterPass.name) return 1.0;
  if (n == r::kEvictionVerified.name) return 1;
  if (n == r::kThreads.name) return p.threads;
  if (n == r::kMeanInflight.name) return p.threads * 0.95;
  if (n == r::kPeakInflight.name) return p.threads;
  if (n == r::kStorageBound.name) return warm ? 0 : 1;
  if (n == r::kDistinctKeys.name) return 10000.0 * p.threads;
  if (n == r::kRssAfterOpenBytes.name) return 64.0 * 1048576;
  if (n == r::kRssAfterPassBytes.name) return 96.0 * 1048576;
  if (n == r::kOpenSeconds.name) return 0.5 + 0.01 * p.rep;
  if (n == r::kMetadataBytes.name) {
    return p.backend == "lmdb" ? 0.0 : 32.0 * 1048576;
  }
  if (n == r::kRepetition.name) return p.rep;
  // Read passes count the backend's files, device passes one table's: half
  // of them.
  if (n == r::kFilePages.name) {
    return device ? std::floor(p.disk_bytes / 2 / 4096)
                  : std::ceil(p.disk_bytes / 4096);
  }
  if (n == r::kFoundFraction.name) {
    return hit || device || p.kind == r::kKindScan ? 1.0 : 0.0;
  }
  if (n == r::kPreloadedBytes.name) return warm ? 1.4e11 : 32.0 * 1048576;
  if (n == r::kPassOrder.name) return p.order;
  if (n == r::kPassStartS.name) return 2.5 * p.order;
  if (n == r::kDeviceReadsPerS.name) return p.device_reads_per_s;
  if (n == r::kIoEfficiency.name) return p.reads_per_s / p.device_reads_per_s;
  if (n == r::kLockedBytes.name) return 1.4e11;
  if (n == r::kDeviceFileBytes.name) return p.disk_bytes / 2;
  throw std::logic_error("no builder value for counter " + std::string(n));
}

json Pass(const PassSpec& p) {
  std::string name =
      r::FormatCellName({p.backend, p.table, p.kind, p.mode, p.threads, p.rep});
  double lat_ns = 1e9 * p.threads / p.reads_per_s;
  json e = {
      {"name", name},
      {"run_name", name},
      {"run_type", "iteration"},
      {"repetitions", 1},
      {"repetition_index", 0},
      {"threads", p.threads},
      {"iterations", p.kind == r::kKindStartup ? 5 : 10000 * p.threads},
      {"real_time", lat_ns},
      {"cpu_time", lat_ns / 10},
      {"time_unit", "ns"},
  };
  // Every required counter, bytes read everywhere, and the device
  // figures on cold hits (the builder's device cells are measured).
  const bool cold_hit = p.kind == r::kKindHit && r::IsColdMode(p.mode);
  const bool batch = p.kind == r::kKindBatch;
  const bool batch_device =
      batch && r::IsColdMode(p.mode) && p.device_reads_per_s > 0;
  for (const r::Counter& c : r::AllCounters()) {
    const bool device_figure = c.name == r::kBatchDeviceReadsPerS.name ||
                               c.name == r::kBatchIoEfficiency.name;
    if (r::CounterExpected(c, p.kind, p.mode) ||
        (c.name == r::kBytesReadPerRead.name && p.kind != r::kKindStartup) ||
        ((c.where & r::kOnColdHit) && cold_hit && p.device_reads_per_s > 0) ||
        (batch && (c.where & r::kOnBatch) &&
         (!device_figure || batch_device)) ||
        (batch && c.name == r::kCpuNsPerRead.name)) {
      e[std::string(c.name)] = Value(c, p);
    }
  }
  return e;
}

// ±jitter x k around the median for repetition k from the middle; the
// middle one (of an odd count) is the exact median.
double Jitter(double jitter, int rep, int reps) {
  return 1.0 + jitter * (rep - (reps - 1) / 2.0);
}

void Set(json& ctx, const r::ContextKey& key, json value) {
  ctx[std::string(key.name)] = std::move(value);
}

}  // namespace

json ResultsBuilder::Build() const {
  json ctx = {
      {"date", "2026-11-30T05:00:00+00:00"},
      {"host_name", "bench-host"},
      {"executable", "./flatbench"},
      {"num_cpus", 32},
      {"mhz_per_cpu", 3000},
      {"cpu_scaling_enabled", false},
      {"library_build_type", "release"},
  };
  std::string thread_list, mode_list;
  for (int t : threads) {
    if (!thread_list.empty()) thread_list += ',';
    thread_list += std::to_string(t);
  }
  for (const auto& m : modes) {
    if (!mode_list.empty()) mode_list += ',';
    mode_list += m;
  }
  Set(ctx, r::kResultsFormat, r::kFormatVersion);
  Set(ctx, r::kVersion, "0.2.0");
  Set(ctx, r::kRevision, "abc1234");
  Set(ctx, r::kBuildType, build_type);
  Set(ctx, r::kAssertsOn, asserts_on);
  Set(ctx, r::kScale, scale);
  Set(ctx, r::kSpec, spec);
  Set(ctx, r::kFingerprint, fingerprint);
  Set(ctx, r::kDatasetAccounts, accounts);
  Set(ctx, r::kDatasetSlotsPerAccount, slots_per_account);
  Set(ctx, r::kDatasetDir, "/data/flatbench");
  Set(ctx, r::kReadsPerPass, 200000);
  Set(ctx, r::kRepetitions, repetitions);
  Set(ctx, r::kThreadCounts, thread_list);
  Set(ctx, r::kModeList, mode_list);
  Set(ctx, r::kKeyDraw, "seeded uniform over the whole key space");
  Set(ctx, r::kEvictionBound, 0.01);
  Set(ctx, r::kWarmBound, 0.99);
  Set(ctx, r::kMachineIdHash, "5f1e2d3c4b5a6978");
  Set(ctx, r::kCpu, "Test CPU");
  Set(ctx, r::kHardwareThreads, hardware_threads);
  Set(ctx, r::kRamBytes, int64_t{68719476736});
  Set(ctx, r::kKernel, "Linux 6.1.0-test x86_64");
  Set(ctx, r::kFilesystem, "ext4");
  Set(ctx, r::kDevice, "/dev/nvme0n1p1 (259:1)");
  Set(ctx, r::kReadAheadKb, "128");
  Set(ctx, r::kScheduler, "none");
  Set(ctx, r::kDropCaches, "writable");
  Set(ctx, r::kLibRocksdb, "7.8.3");
  Set(ctx, r::kLibLmdb, "0.9.24");
  Set(ctx, r::kLibCompiler, "gcc 12.2.0");
  Set(ctx, r::kRunStart, "2026-11-30T05:00:00Z");
  Set(ctx, r::kSchedule,
      "for each mode, repetition and cell, the backends "
      "in an order rotated by repetition + cell");
  Set(ctx, r::kTimingOverheadNs, 25.0);
  Set(ctx, r::kDeviceReadsPerPass, 10000);
  Set(ctx, r::kVerifyChecksums, true);
  Set(ctx, r::kEvictMethod, "drop_caches");
  for (const auto& b : backends) {
    auto set = [&](const r::BackendContextKey& k, json v) {
      ctx[r::BackendKey(b, k)] = std::move(v);
    };
    set(r::kSettings, json{{"name", b}, {"block_bytes", "4096"}});
    set(r::kBuildSeconds, 1234.5);
    set(r::kDiskBytes, disk_bytes);
    set(r::kSanityPassed, true);
    set(r::kSanityKeys, 2000);
    set(r::kDataFiles, json{{"account", "/data/" + b + "/account"},
                            {"storage", "/data/" + b + "/storage"}});
    set(r::kEviction, "drop_caches");
    set(r::kPreload, "index and filter");
    set(r::kWarmLock, "mlock");
    set(r::kDeviceStatus, "measured");
  }
  json benches = json::array();
  int order = 0;
  for (const auto& b : backends) {
    for (const auto& mode : modes) {
      const bool cold = r::IsColdMode(mode);
      for (const std::string table : {"account", "storage"}) {
        std::vector<std::string> kinds = {"hit", "miss-absent"};
        if (table == "storage") kinds.push_back("miss-live");
        if (cold && device_cells) kinds.insert(kinds.begin(), "device");
        if (scan_cells) kinds.push_back("scan");
        if (startup_cells && table == "account") kinds.push_back("startup");
        if (batch_cells) kinds.push_back("batch");
        for (const auto& kind : kinds) {
          const bool batch = kind == "batch";
          for (int t : batch ? batch_threads : threads) {
            if (kind == "startup" && t != 1) continue;
            for (int rep = 0; rep < repetitions; ++rep) {
              double j = Jitter(jitter, rep, repetitions);
              double device =
                  device_cells ? device_reads_per_s.at(b) * t * j : 0;
              double base = kind == "hit"      ? hit_reads_per_s.at(b)
                            : kind == "device" ? device_reads_per_s.at(b)
                            : kind == "scan"   ? hit_reads_per_s.at(b) / 10
                            : batch ? 4 * hit_reads_per_s.at(b) / batch_size
                                    : miss_reads_per_s.at(b);
              if (batch) {
                // The device cell at threads:<batch_size> of this rep.
                device = device_cells
                             ? device_reads_per_s.at(b) * batch_size * j
                             : 0;
              }
              benches.push_back(
                  Pass({b, table, kind, mode, t, rep, base * t * j, device,
                        batch ? batch_size : 0, order++,
                        static_cast<double>(disk_bytes)}));
            }
          }
        }
      }
    }
  }
  return json{{"context", ctx}, {"benchmarks", benches}};
}

json& Entry(json& doc, const std::string& name) {
  for (auto& e : doc["benchmarks"]) {
    if (e["name"] == name) return e;
  }
  throw std::runtime_error("no benchmark " + name);
}

void SplitEntries(const json& doc, const std::string& prefix, json* with,
                  json* rest) {
  *with = doc;
  *rest = doc;
  (*with)["benchmarks"] = json::array();
  (*rest)["benchmarks"] = json::array();
  for (const auto& e : doc["benchmarks"]) {
    const bool match = e["name"].get<std::string>().rfind(prefix, 0) == 0;
    (match ? *with : *rest)["benchmarks"].push_back(e);
  }
}

int RemoveEntries(json& doc, const std::string& prefix) {
  json kept = json::array();
  int removed = 0;
  for (auto& e : doc["benchmarks"]) {
    if (e["name"].get<std::string>().rfind(prefix, 0) == 0) {
      ++removed;
    } else {
      kept.push_back(e);
    }
  }
  doc["benchmarks"] = kept;
  return removed;
}

int SetCounter(json& doc, const std::string& prefix, const std::string& counter,
               double value) {
  int n = 0;
  for (auto& e : doc["benchmarks"]) {
    if (e["name"].get<std::string>().rfind(prefix, 0) == 0) {
      e[counter] = value;
      ++n;
    }
  }
  return n;
}

int SetRate(json& doc, const std::string& prefix, double value) {
  int n = 0;
  std::set<std::string> hits;  // Cold hits whose device cell changed.
  for (auto& e : doc["benchmarks"]) {
    const std::string name = e["name"].get<std::string>();
    if (name.rfind(prefix, 0) != 0) continue;
    e["reads_per_s"] = value;
    if (e.contains("io_efficiency")) {
      e["io_efficiency"] = value / e["device_reads_per_s"].get<double>();
    }
    const size_t at = name.find("/device/");
    if (at != std::string::npos) {
      hits.insert(name.substr(0, at) + "/hit/" + name.substr(at + 8));
    }
    ++n;
  }
  // A cold hit copies its adjacent device cell's rate.
  for (auto& e : doc["benchmarks"]) {
    if (!hits.count(e["name"].get<std::string>()) ||
        !e.contains("device_reads_per_s")) {
      continue;
    }
    e["device_reads_per_s"] = value;
    e["io_efficiency"] = e["reads_per_s"].get<double>() / value;
  }
  return n;
}

int ScaleCounter(json& doc, const std::string& prefix,
                 const std::string& counter, double factor) {
  int n = 0;
  for (auto& e : doc["benchmarks"]) {
    if (e["name"].get<std::string>().rfind(prefix, 0) == 0) {
      e[counter] = e[counter].get<double>() * factor;
      ++n;
    }
  }
  return n;
}

}  // namespace flatbench::report::testing
