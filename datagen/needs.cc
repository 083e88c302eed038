#include "datagen/needs.h"

#include <algorithm>

#include "common/files.h"
#include "datagen/dataset.h"
#include "dataset/estimate.h"

namespace flatbench::datagen {
namespace {

constexpr uint64_t kDeviceScratchMax = 4ULL << 30;

}  // namespace

RunNeeds EstimateRunNeeds(const dataset::Spec& spec, const std::string& dir,
                          const std::vector<std::string>& backends) {
  auto ds = Dataset::Open(dir);
  RunNeeds n;
  uint64_t largest = 0;
  for (const auto& b : backends) {
    uint64_t est = dataset::EstimateDiskBytes(spec, b);
    largest = std::max(largest, est);
    bool built = ds.ok() && ds->spec() == spec && ds->Build(b).ok();
    if (!built) n.disk += est;
  }
  n.disk += std::min(kDeviceScratchMax, largest);
  n.free_disk = FreeBytes(dir);
  n.ram = dataset::EstimateGeneratorBytes(spec) + (1ULL << 30);
  n.free_ram = MemAvailableBytes();
  return n;
}

Status CheckRunNeeds(const RunNeeds& needs, const dataset::Spec& spec,
                     const std::string& dir) {
  if (needs.disk > needs.free_disk) {
    return Status::RefuseOverwrite(dir +
                                   ": not enough free disk: this run needs " +
                                   HumanBytes(needs.disk) + " more, " +
                                   HumanBytes(needs.free_disk) + " is free");
  }
  if (needs.free_ram != 0 && needs.ram > needs.free_ram) {
    return Status::RefuseOverwrite(
        "not enough memory: generating " + spec.scale + " needs " +
        HumanBytes(needs.ram) + ", " + HumanBytes(needs.free_ram) +
        " is available");
  }
  return Status::Ok();
}

}  // namespace flatbench::datagen
