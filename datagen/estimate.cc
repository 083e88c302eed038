#include "datagen/estimate.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/files.h"
#include "datagen/dataset.h"

namespace flatbench::datagen {
namespace {

constexpr uint64_t kDeviceScratchMax = 4ULL << 30;

}  // namespace

uint64_t RawBytes(const dataset::Spec& spec) {
  // 100.625 bytes per account pair, kept in integer eighths.
  return spec.accounts * 805 / 8 + spec.storage_slots() * (52 + 32);
}

namespace {

// Expected number of distinct values among `n` uniform draws from `bins`.
double Distinct(double bins, double n) {
  return bins * -std::expm1(n * std::log1p(-1.0 / bins));
}

}  // namespace

FsStoreEstimate EstimateFsStore(const dataset::Spec& spec,
                                uint64_t block_bytes) {
  FsStoreEstimate e;
  e.files = spec.accounts + spec.storage_slots();
  // A storage key starts with its account key's first four bytes, so both
  // tables' folders follow the accounts' prefixes.
  const double n = static_cast<double>(spec.accounts);
  const double per_table = 1 + Distinct(256, n) + Distinct(65536, n);
  const int tables = spec.storage_slots() > 0 ? 2 : 1;
  e.folders = static_cast<uint64_t>(std::ceil(per_table * tables)) + 1;
  e.inodes = e.files + e.folders;
  e.disk_bytes = e.inodes * block_bytes;
  return e;
}

uint64_t EstimateDiskBytes(const dataset::Spec& spec,
                           const std::string& backend) {
  if (backend == "fs") return EstimateFsStore(spec).disk_bytes * 11 / 10;
  // Size over raw bytes at medium scale (10M x 4): arena 1.056,
  // rocksdb 1.008, lmdb 1.149; sqlite 1.22 (measured at smoke scale: 60.6 MiB).
  double factor = backend == "arena"     ? 1.056
                  : backend == "rocksdb" ? 1.008
                  : backend == "sqlite"  ? 1.22
                                         : 1.149;
  return static_cast<uint64_t>(RawBytes(spec) * factor * 1.10) + (64ULL << 20);
}

double EstimateBuildSeconds(const dataset::Spec& spec,
                            const std::string& backend) {
  const double pairs =
      static_cast<double>(spec.accounts + spec.storage_slots());
  const double rate = backend == "arena"      ? 640e3
                      : backend == "rocksdb"  ? 520e3
                      : backend == "sqlite"   ? 270e3
                      : backend == "postgres" ? 127e3
                      : backend == "fs"       ? 12e3
                                              : 170e3;
  const double setup = backend == "postgres" ? 3.0 : 0.0;
  return setup + pairs / rate;
}

uint64_t EstimateGeneratorBytes(const dataset::Spec& spec) {
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

namespace {

// statvfs of `path` or its nearest existing parent; false if unknown.
bool StatNearest(const std::string& path, struct statvfs* st) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
  return statvfs(p.c_str(), st) == 0;
}

}  // namespace

uint64_t FreeBytes(const std::string& path) {
  struct statvfs st;
  if (!StatNearest(path, &st)) return 0;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

uint64_t FreeInodes(const std::string& path) {
  struct statvfs st;
  if (!StatNearest(path, &st)) return 0;
  return static_cast<uint64_t>(st.f_favail);
}

uint64_t BlockBytes(const std::string& path) {
  struct statvfs st;
  if (!StatNearest(path, &st)) return 0;
  return static_cast<uint64_t>(st.f_bsize);
}

RunNeeds EstimateRunNeeds(const dataset::Spec& spec, const std::string& dir,
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

bool WarmModeFits(uint64_t files_bytes, uint64_t mem_available) {
  return mem_available == 0 || files_bytes <= mem_available * 7 / 10;
}

uint64_t WarmHoldLimitBytes(uint64_t mem_available) {
  return mem_available > (1ULL << 30) ? (mem_available - (1ULL << 30)) * 4 / 5
                                      : 0;
}

}  // namespace flatbench::datagen
