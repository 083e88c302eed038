#include "datagen/estimate.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/files.h"
#include "datagen/dataset.h"

namespace flatbench::datagen {
namespace {

constexpr uint64_t kDeviceScratchMax = 4ULL << 30;

}  // namespace

uint64_t RawBytes(const Spec& spec) {
  // 100.625 bytes per account pair, kept in integer eighths.
  return spec.accounts * 805 / 8 + spec.storage_slots() * (52 + 32);
}

uint64_t EstimateDiskBytes(const Spec& spec, const std::string& backend) {
  // Size over raw bytes at medium scale (10M x 4): arena 1.056,
  // rocksdb 1.008, lmdb 1.149.
  double factor = backend == "arena"     ? 1.056
                  : backend == "rocksdb" ? 1.008
                                         : 1.149;
  return static_cast<uint64_t>(RawBytes(spec) * factor * 1.10) + (64ULL << 20);
}

double EstimateBuildSeconds(const Spec& spec, const std::string& backend) {
  const double pairs =
      static_cast<double>(spec.accounts + spec.storage_slots());
  const double rate = backend == "arena"     ? 640e3
                      : backend == "rocksdb" ? 520e3
                                             : 170e3;
  return pairs / rate;
}

uint64_t EstimateGeneratorBytes(const Spec& spec) {
  uint64_t per_bucket_accounts = spec.accounts / 256 + 1;
  uint64_t bucket =
      std::max<uint64_t>(28 * per_bucket_accounts,
                         64 * per_bucket_accounts * spec.slots_per_account);
  // 1.5x for vector growth and skew between buckets.
  return 4 * spec.accounts + bucket * 3 / 2;
}

uint64_t MemAvailableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  uint64_t kb = 0;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return 0;
}

uint64_t FreeBytes(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
  struct statvfs st;
  if (statvfs(p.c_str(), &st) != 0) return 0;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

RunNeeds EstimateRunNeeds(const Spec& spec, const std::string& dir,
                          const std::vector<std::string>& backends) {
  auto ds = Dataset::Open(dir);
  RunNeeds n;
  uint64_t largest = 0;
  for (const auto& b : backends) {
    uint64_t est = EstimateDiskBytes(spec, b);
    largest = std::max(largest, est);
    bool built = ds.ok() && ds->spec() == spec && ds->Build(b).ok();
    if (!built) n.disk += est;
  }
  n.disk += std::min(kDeviceScratchMax, largest);
  n.free_disk = FreeBytes(dir);
  n.ram = EstimateGeneratorBytes(spec) + (1ULL << 30);
  n.free_ram = MemAvailableBytes();
  return n;
}

Status CheckRunNeeds(const RunNeeds& needs, const Spec& spec,
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

bool WarmModeFits(uint64_t files_bytes, uint64_t mem_available) {
  return mem_available == 0 || files_bytes <= mem_available * 7 / 10;
}

uint64_t WarmHoldLimitBytes(uint64_t mem_available) {
  return mem_available > (1ULL << 30) ? (mem_available - (1ULL << 30)) * 4 / 5
                                      : 0;
}

}  // namespace flatbench::datagen
