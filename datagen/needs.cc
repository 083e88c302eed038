#include "datagen/needs.h"

#include <algorithm>

#include "common/files.h"
#include "datagen/dataset.h"
#include "dataset/estimate.h"

namespace flatbench::datagen {
namespace {

constexpr uint64_t kDeviceScratchMax = 4ULL << 30;

}  // namespace

uint64_t DeviceScratchBytes(const dataset::Spec& spec,
                            const std::vector<std::string>& stores) {
  uint64_t largest = 0;
  for (const auto& b : stores) {
    largest = std::max(largest, dataset::EstimateDiskBytes(spec, b));
  }
  return std::min(kDeviceScratchMax, largest);
}

uint64_t RunDiskBytes(const dataset::Spec& spec,
                      const std::vector<std::string>& stores) {
  uint64_t total = DeviceScratchBytes(spec, stores);
  for (const auto& b : stores) total += dataset::EstimateDiskBytes(spec, b);
  return total;
}

std::string DiskFigure(uint64_t bytes) {
  constexpr uint64_t kGb = 1'000'000'000;
  if (bytes < kGb) return HumanBytes(bytes);
  return std::to_string((bytes + kGb - 1) / kGb) + " GB (" + HumanBytes(bytes) +
         ")";
}

RunNeeds EstimateRunNeeds(const dataset::Spec& spec, const std::string& dir,
                          const std::vector<std::string>& backends) {
  auto ds = Dataset::Open(dir);
  RunNeeds n;
  for (const auto& b : backends) {
    bool built = ds.ok() && ds->spec() == spec && ds->Build(b).ok();
    if (!built) n.disk += dataset::EstimateDiskBytes(spec, b);
  }
  n.disk += DeviceScratchBytes(spec, backends);
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
                                   DiskFigure(needs.disk) + " more, " +
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
