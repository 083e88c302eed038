#pragma once
// This host's last builds as the gen estimate's calibration (RESEARCH.md
// section 6, "Calibration"). Each completion marker gen writes records the
// build's seconds and pairs, its jobs, the builds that ran at once, the
// host's hardware threads and identity (datagen/dataset_dir.h). For each store,
// the newest marker of this host among the datasets near the one planned
// gives a factor: its measured seconds over the model's for that build,
// the store alone (dataset::EstimateBuildSeconds) at the jobs its share of
// the cores allowed, min(jobs, max(1, cores / builds at once)). The plan
// multiplies that store's times by it (dataset::EstimateGenSeconds).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace flatbench::datagen {

// Builds smaller than this are left out: their fixed costs (a server's
// start, the closing fsyncs) would set the factor, not their rate.
inline constexpr uint64_t kMinCalibrationPairs = 500'000;

struct StoreCalibration {
  double factor = 1;  // Measured over modelled seconds.
  double measured_s = 0, modelled_s = 0;
  std::string marker;  // The completion marker it comes from.
  double started = 0;  // That build's start (Unix seconds).
};

// `dir` and every dataset directory beside it (its parent's folders that
// hold a dataset identity), in name order.
std::vector<std::string> NearbyDatasets(const std::string& dir);

// Per store, the newest build of host `host` in the datasets `dirs` that
// recorded how it was built; a store with none is absent.
std::map<std::string, StoreCalibration> CalibrateGen(
    const std::vector<std::string>& dirs, const std::string& host);

}  // namespace flatbench::datagen
