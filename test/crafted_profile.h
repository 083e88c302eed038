#pragma once
// A device profile document (common/sweep_schema.h, "A device profile")
// whose every figure is known, for tests: mean latency depth x 10 us +
// (bytes / 4 KiB) x 5 us, the rounds at half and twice the cell's rate.

#include <nlohmann/json.hpp>

#include "common/sweep_schema.h"

namespace flatbench::testing {

inline nlohmann::json CraftedDeviceProfile() {
  nlohmann::json cells = nlohmann::json::array();
  for (int d : sweep::kProfileQueueDepths) {
    for (int64_t b : sweep::kProfileReadBytes) {
      const double lat_ns = d * 10'000.0 + static_cast<double>(b) / 4096 * 5000;
      const double rate = d / (lat_ns * 1e-9);
      cells.push_back({{"queue_depth", d},
                       {"read_bytes", b},
                       {"reads", 1000},
                       {"reads_per_s", rate},
                       {"reads_per_s_low", rate / 2},
                       {"reads_per_s_high", rate * 2},
                       {"lat_mean_ns", lat_ns},
                       {"lat_p50_ns", lat_ns},
                       {"lat_p99_ns", lat_ns * 3},
                       {"lat_p999_ns", lat_ns * 5}});
    }
  }
  return {{"flatbench_device_profile", 1},
          {"dir", "/data"},
          {"filesystem", "ext4"},
          {"file_bytes", 1 << 30},
          {"rounds", 3},
          {"seconds_per_cell", 1.5},
          {"cpus", 2},
          {"load_average", 0.5},
          {"measured_at", "2026-01-01T00:00:00Z"},
          {"cells", cells}};
}

// The device profile of a 32-thread host with a local NVMe disk, as
// RESEARCH.md section 6 plans for it: 4 KiB reads at 80 us at depth 1, 90 us
// at depth 8 and 100 us at depth 32 (about 12,500, 89,000 and 320,000
// reads/s), plus 5 us per further 4 KiB, the rounds within 10%.
inline nlohmann::json CraftedNvmeProfile() {
  nlohmann::json doc = CraftedDeviceProfile();
  nlohmann::json cells = nlohmann::json::array();
  for (int d : sweep::kProfileQueueDepths) {
    for (int64_t b : sweep::kProfileReadBytes) {
      const double base_us = d == 1 ? 80 : d == 8 ? 90 : 100;
      const double lat_ns =
          (base_us + (static_cast<double>(b) / 4096 - 1) * 5) * 1000;
      const double rate = d / (lat_ns * 1e-9);
      cells.push_back({{"queue_depth", d},
                       {"read_bytes", b},
                       {"reads", 100000},
                       {"reads_per_s", rate},
                       {"reads_per_s_low", rate * 0.9},
                       {"reads_per_s_high", rate * 1.1},
                       {"lat_mean_ns", lat_ns},
                       {"lat_p50_ns", lat_ns},
                       {"lat_p99_ns", lat_ns * 3},
                       {"lat_p999_ns", lat_ns * 5}});
    }
  }
  doc["cells"] = cells;
  doc["cpus"] = 32;
  doc["dir"] = "/mnt/nvme";
  return doc;
}

}  // namespace flatbench::testing
