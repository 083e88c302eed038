#include "test/report/results_builder.h"

#include <cmath>
#include <deque>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

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

// A startup pass's own counters, nothing for the rest.
std::optional<double> StartupValue(std::string_view n, const PassSpec& p) {
  if (n == r::kStartupS.name) return 0.2 + 0.01 * p.rep;
  if (n == r::kStartupMinS.name) return 0.15;
  if (n == r::kStartupMaxS.name) return 0.4;
  if (n == r::kStartupProbes.name) return 5;
  if (n == r::kOpenSeconds.name) return 0.05;
  return std::nullopt;
}

// A batch pass's own counters, nothing for the rest.
std::optional<double> BatchValue(std::string_view n, const PassSpec& p) {
  const bool warm = p.mode == r::kModeWarm;
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
  return std::nullopt;
}

// What a read pass measured: scans, rates, latencies, faults and bytes.
std::optional<double> MeasuredValue(std::string_view n, const PassSpec& p) {
  const bool hit = p.kind == r::kKindHit;
  const bool device = p.kind == r::kKindDevice;
  const bool warm = p.mode == r::kModeWarm;
  const double lat_ns = 1e9 * p.threads / p.reads_per_s;
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
  return std::nullopt;
}

// The state around a pass: residency, concurrency, memory, files, its
// place in the schedule and its device figures.
std::optional<double> StateValue(std::string_view n, const PassSpec& p) {
  const bool hit = p.kind == r::kKindHit;
  const bool device = p.kind == r::kKindDevice;
  const bool warm = p.mode == r::kModeWarm;
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
  return std::nullopt;
}

// The value each counter takes on a healthy pass: a startup's or a batch's
// own figure first, then what every pass records.
double Value(const r::Counter& c, const PassSpec& p) {
  const std::string_view n = c.name;
  std::optional<double> v;
  if (p.kind == r::kKindStartup) v = StartupValue(n, p);
  if (!v && p.kind == r::kKindBatch) v = BatchValue(n, p);
  if (!v) v = MeasuredValue(n, p);
  if (!v) v = StateValue(n, p);
  if (v) return *v;
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

template <typename T>
std::string CommaList(const std::vector<T>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ',';
    if constexpr (std::is_same_v<T, std::string>) {
      out += item;
    } else {
      out += std::to_string(item);
    }
  }
  return out;
}

// The run's context: the build, dataset, run plan and host.
json RunContext(const ResultsBuilder& rb) {
  json ctx = {
      {"date", "2026-11-30T05:00:00+00:00"},
      {"host_name", "bench-host"},
      {"executable", "./flatbench"},
      {"num_cpus", 32},
      {"mhz_per_cpu", 3000},
      {"cpu_scaling_enabled", false},
      {"library_build_type", "release"},
  };
  Set(ctx, r::kResultsFormat, r::kFormatVersion);
  Set(ctx, r::kVersion, "0.2.0");
  Set(ctx, r::kRevision, "abc1234");
  Set(ctx, r::kBuildType, rb.build_type);
  Set(ctx, r::kAssertsOn, rb.asserts_on);
  Set(ctx, r::kScale, rb.scale);
  Set(ctx, r::kSpec, rb.spec);
  Set(ctx, r::kFingerprint, rb.fingerprint);
  Set(ctx, r::kDatasetAccounts, rb.accounts);
  Set(ctx, r::kDatasetSlotsPerAccount, rb.slots_per_account);
  Set(ctx, r::kDatasetDir, "/data/flatbench");
  Set(ctx, r::kReadsPerPass, 200000);
  Set(ctx, r::kRepetitions, rb.repetitions);
  Set(ctx, r::kThreadCounts, CommaList(rb.threads));
  Set(ctx, r::kModeList, CommaList(rb.modes));
  Set(ctx, r::kKeyDraw, "seeded uniform over the whole key space");
  Set(ctx, r::kEvictionBound, 0.01);
  Set(ctx, r::kWarmBound, 0.99);
  Set(ctx, r::kMachineIdHash, "5f1e2d3c4b5a6978");
  Set(ctx, r::kCpu, "Test CPU");
  Set(ctx, r::kHardwareThreads, rb.hardware_threads);
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
  return ctx;
}

// One backend's keys in the context.
void AddBackendContext(json& ctx, const std::string& b, int64_t disk_bytes) {
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

// The kinds a table's cells come in, in the order they are scheduled.
std::vector<std::string> BuiltKinds(const ResultsBuilder& rb,
                                    const std::string& table, bool cold) {
  std::vector<std::string> kinds = {"hit", "miss-absent"};
  if (table == "storage") kinds.push_back("miss-live");
  if (cold && rb.device_cells) kinds.insert(kinds.begin(), "device");
  if (rb.scan_cells) kinds.push_back("scan");
  if (rb.startup_cells && table == "account") kinds.push_back("startup");
  if (rb.batch_cells) kinds.push_back("batch");
  return kinds;
}

// `p` (its cell, repetition and place in the schedule) with its rate from
// the backend's figure for the kind, times threads and jitter, and the
// device rate it sits beside.
PassSpec WithRates(const ResultsBuilder& rb, PassSpec p) {
  const std::string& b = p.backend;
  const bool batch = p.kind == "batch";
  double j = Jitter(rb.jitter, p.rep, rb.repetitions);
  double device =
      rb.device_cells ? rb.device_reads_per_s.at(b) * p.threads * j : 0;
  double base = p.kind == "hit"      ? rb.hit_reads_per_s.at(b)
                : p.kind == "device" ? rb.device_reads_per_s.at(b)
                : p.kind == "scan"   ? rb.hit_reads_per_s.at(b) / 10
                : batch ? 4 * rb.hit_reads_per_s.at(b) / rb.batch_size
                        : rb.miss_reads_per_s.at(b);
  if (batch) {
    // The device cell at threads:<batch_size> of this rep.
    device =
        rb.device_cells ? rb.device_reads_per_s.at(b) * rb.batch_size * j : 0;
  }
  p.reads_per_s = base * p.threads * j;
  p.device_reads_per_s = device;
  p.batch_size = batch ? rb.batch_size : 0;
  p.disk_bytes = static_cast<double>(rb.disk_bytes);
  return p;
}

// Every pass, backend by backend, in schedule order.
json BuiltBenchmarks(const ResultsBuilder& rb) {
  json benches = json::array();
  int order = 0;
  for (const auto& b : rb.backends) {
    for (const auto& mode : rb.modes) {
      for (const std::string table : {"account", "storage"}) {
        for (const auto& kind : BuiltKinds(rb, table, r::IsColdMode(mode))) {
          for (int t : kind == "batch" ? rb.batch_threads : rb.threads) {
            if (kind == "startup" && t != 1) continue;
            for (int rep = 0; rep < rb.repetitions; ++rep) {
              benches.push_back(Pass(WithRates(rb, {.backend = b,
                                                    .table = table,
                                                    .kind = kind,
                                                    .mode = mode,
                                                    .threads = t,
                                                    .rep = rep,
                                                    .order = order++})));
            }
          }
        }
      }
    }
  }
  return benches;
}

}  // namespace

json ResultsBuilder::Build() const {
  // The documents built last, newest first: a case that varies the
  // builder goes back to the defaults in the next.
  static std::deque<std::pair<ResultsBuilder, json>> built;
  constexpr size_t kKept = 8;
  for (auto it = built.begin(); it != built.end(); ++it) {
    if (it->first != *this) continue;
    if (it != built.begin()) {
      auto hit = std::move(*it);
      built.erase(it);
      built.push_front(std::move(hit));
    }
    return built.front().second;
  }
  json ctx = RunContext(*this);
  for (const auto& b : backends) AddBackendContext(ctx, b, disk_bytes);
  built.emplace_front(
      *this, json{{"context", ctx}, {"benchmarks", BuiltBenchmarks(*this)}});
  if (built.size() > kKept) built.pop_back();
  return built.front().second;
}

}  // namespace flatbench::report::testing
