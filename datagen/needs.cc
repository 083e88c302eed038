#include "datagen/needs.h"

#include <algorithm>

#include "common/files.h"
#include "datagen/dataset_dir.h"
#include "dataset/estimate.h"

namespace flatbench::datagen {
namespace {

constexpr uint64_t kDeviceScratchMax = 4ULL << 30;

constexpr uint64_t kProcessBytes = 1ULL << 30;

}  // namespace

unsigned ConcurrentBuilds(const dataset::Spec& spec, unsigned jobs,
                          size_t pending, uint64_t free_ram) {
  jobs = std::max(1u, jobs);
  uint64_t k = std::min<uint64_t>(jobs, std::max<size_t>(1, pending));
  if (free_ram != 0) {
    const uint64_t each = dataset::EstimateGeneratorBytes(spec, jobs);
    while (k > 1 && k * each + kProcessBytes > free_ram) --k;
  }
  return static_cast<unsigned>(k);
}

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
                          const std::vector<std::string>& backends,
                          unsigned jobs) {
  auto ds = Dataset::Open(dir);
  RunNeeds n;
  size_t pending = 0;
  for (const auto& b : backends) {
    bool built = ds.ok() && ds->spec() == spec && ds->Build(b).ok();
    if (!built) n.disk += dataset::EstimateDiskBytes(spec, b), ++pending;
  }
  n.disk += DeviceScratchBytes(spec, backends);
  n.free_disk = FreeBytes(dir);
  n.free_ram = MemAvailableBytes();
  n.jobs = std::max(1u, jobs);
  n.concurrent = ConcurrentBuilds(spec, n.jobs, pending, n.free_ram);
  n.ram = n.concurrent * dataset::EstimateGeneratorBytes(spec, n.jobs) +
          kProcessBytes;
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
        "not enough memory: generating " + spec.scale + " with --jobs " +
        std::to_string(needs.jobs) + " needs " + HumanBytes(needs.ram) + ", " +
        HumanBytes(needs.free_ram) +
        " is available; a smaller --jobs needs less");
  }
  return Status::Ok();
}

}  // namespace flatbench::datagen
