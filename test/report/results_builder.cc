#include "test/report/results_builder.h"

#include <stdexcept>

namespace flatbench::report::testing {
namespace {

using nlohmann::json;

json Pass(const std::string& backend, const std::string& table,
          const std::string& kind, const std::string& mode, int threads,
          int rep, double reads_per_s) {
  std::string name = backend + "/" + table + "/" + kind + "/" + mode +
                     "/threads:" + std::to_string(threads) +
                     "/rep:" + std::to_string(rep);
  bool hit = kind == "hit";
  double lat_ns = 1e9 * threads / reads_per_s;
  json e = {
      {"name", name},
      {"run_name", name},
      {"run_type", "iteration"},
      {"repetitions", 1},
      {"repetition_index", 0},
      {"threads", threads},
      {"iterations", 10000},
      {"real_time", lat_ns},
      {"cpu_time", lat_ns / 10},
      {"time_unit", "ns"},
      {"reads_per_s", reads_per_s},
      {"lat_mean_ns", lat_ns},
      {"lat_p50_ns", lat_ns * 0.9},
      {"lat_p99_ns", lat_ns * 3},
      {"lat_p999_ns", lat_ns * 6},
      {"lat_sample_every", 1},
      {"major_faults_per_read", hit ? 1.1 : 0.4},
      {"bytes_read_per_read", hit ? 4600.0 : 1700.0},
      // After reopening, metadata pages are resident again.
      {"resident_fraction_before", mode == "warm" ? 1.0 : 0.03},
      {"resident_fraction_after_eviction", 0.002},
      {"eviction_verified", 1},
      {"peak_inflight", threads},
      {"concurrency_short", 0},
      {"distinct_keys", 10000.0 * threads},
      {"rss_after_open_bytes", 64.0 * 1048576},
      {"rss_after_pass_bytes", 96.0 * 1048576},
      {"open_seconds", 0.5 + 0.01 * rep},
      {"metadata_bytes", backend == "lmdb" ? 0.0 : 32.0 * 1048576},
      {"repetition", rep},
      {"found_fraction", hit ? 1.0 : 0.0},
  };
  if (mode == "warm") e.erase("resident_fraction_after_eviction");
  if (backend == "device") {
    for (const char* k : {"found_fraction", "metadata_bytes", "open_seconds",
                          "eviction_verified", "resident_fraction_before",
                          "resident_fraction_after_eviction"}) {
      e.erase(k);
    }
  }
  return e;
}

// ±1% and ±2% around the median for five repetitions; the middle one is
// the exact median.
double Jitter(int rep, int reps) {
  return 1.0 + 0.01 * (rep - (reps - 1) / 2.0);
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
      {"flatbench.version", "0.1.0"},
      {"flatbench.build_type", build_type},
      {"flatbench.asserts", asserts},
      {"flatbench.scale", scale},
      {"flatbench.spec", spec},
      {"flatbench.fingerprint", fingerprint},
      {"flatbench.dataset_dir", "/data/flatbench"},
      {"flatbench.reads_per_pass", "200000"},
      {"flatbench.repetitions", std::to_string(repetitions)},
      {"flatbench.key_draw", "seeded uniform over the whole key space"},
      {"flatbench.env.kernel", "6.1.0-test"},
      {"flatbench.env.cpu", "Test CPU"},
      {"flatbench.env.cores", "32"},
      {"flatbench.env.ram_bytes", "68719476736"},
      {"flatbench.env.filesystem", "ext4"},
      {"flatbench.env.device", "nvme0n1"},
      {"flatbench.env.read_ahead_kb", "128"},
      {"flatbench.env.scheduler", "none"},
      {"flatbench.env.drop_caches", "yes"},
      {"flatbench.lib.rocksdb", "7.8.3"},
      {"flatbench.lib.lmdb", "0.9.24"},
      {"flatbench.lib.compiler", "gcc 12.2.0"},
      {"flatbench.eviction_bound", "0.01"},
  };
  for (const auto& b : backends) {
    const std::string pre = "flatbench.backend." + b;
    ctx[pre + ".settings"] = json{{"name", b}, {"block_bytes", "4096"}}.dump();
    ctx[pre + ".build_seconds"] = "1234.5";
    ctx[pre + ".disk_bytes"] = "107374182400";
    ctx[pre + ".sanity"] = "passed (2000 keys)";
  }
  json benches = json::array();
  for (const auto& b : backends) {
    for (const auto& mode : modes) {
      for (const std::string table : {"account", "storage"}) {
        std::vector<std::string> kinds = {"hit", "miss-absent"};
        if (table == "storage") kinds.push_back("miss-live");
        for (const auto& kind : kinds) {
          double base =
              kind == "hit" ? hit_reads_per_s.at(b) : miss_reads_per_s.at(b);
          for (int t : threads) {
            for (int r = 0; r < repetitions; ++r) {
              benches.push_back(Pass(b, table, kind, mode, t, r,
                                     base * t * Jitter(r, repetitions)));
            }
          }
        }
      }
    }
  }
  if (device_row) {
    for (int t : threads) {
      for (int r = 0; r < repetitions; ++r) {
        benches.push_back(
            Pass("device", "raw", "hit", "cold", t, r,
                 device_reads_per_s * t * Jitter(r, repetitions)));
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

}  // namespace flatbench::report::testing
