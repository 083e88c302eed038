#include "datagen/gen_calibration.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "datagen/dataset_dir.h"
#include "dataset/estimate.h"

namespace flatbench::datagen {
namespace {

// The model's seconds for the build `b` recorded in a dataset of `spec`.
double Modelled(const dataset::Spec& spec, const BackendBuild& b) {
  const GenRecord& g = b.gen;
  const unsigned share = std::max(1u, g.cores / std::max(1u, g.builds_at_once));
  return dataset::EstimateBuildSeconds(spec, b.backend,
                                       std::min(std::max(1u, g.jobs), share));
}

}  // namespace

std::vector<std::string> NearbyDatasets(const std::string& dir) {
  namespace fs = std::filesystem;
  std::set<std::string> out;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) out.insert(dir);
  const fs::path parent = fs::absolute(dir, ec).parent_path();
  for (const auto& d : fs::directory_iterator(parent, ec)) {
    if (fs::is_regular_file(d.path() / kIdentityFile, ec)) {
      out.insert(d.path().string());
    }
  }
  return {out.begin(), out.end()};
}

std::map<std::string, StoreCalibration> CalibrateGen(
    const std::vector<std::string>& dirs, const std::string& host) {
  std::map<std::string, StoreCalibration> out;
  if (host.empty()) return out;
  for (const std::string& dir : dirs) {
    auto ds = Dataset::Open(dir);
    if (!ds.ok()) continue;
    for (const std::string& store : ds->CompleteBackends()) {
      auto b = ds->Build(store);
      if (!b.ok() || b->gen.jobs == 0 || b->gen.host != host) continue;
      if (b->pairs[0] + b->pairs[1] < kMinCalibrationPairs) continue;
      const double modelled = Modelled(ds->spec(), b.value());
      if (!(modelled > 0) || !(b->build_seconds > 0)) continue;
      auto it = out.find(store);
      if (it != out.end() && it->second.started >= b->gen.started) continue;
      out[store] = {b->build_seconds / modelled, b->build_seconds, modelled,
                    ds->MarkerPath(store), b->gen.started};
    }
  }
  return out;
}

}  // namespace flatbench::datagen
