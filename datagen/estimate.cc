#include "datagen/estimate.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace flatbench::datagen {

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

}  // namespace flatbench::datagen
