#include "dataset/estimate.h"

#include <algorithm>
#include <cmath>

namespace flatbench::dataset {
namespace {

// Expected number of distinct values among `n` uniform draws from `bins`.
double Distinct(double bins, double n) {
  return bins * -std::expm1(n * std::log1p(-1.0 / bins));
}

double OneJobSeconds(const Spec& spec, const StoreFigures& f) {
  const double pairs =
      static_cast<double>(spec.accounts + spec.storage_slots());
  return pairs / f.pairs_per_second;
}

}  // namespace

const StoreFigures& FiguresOf(std::string_view store) {
  const BackendFacts* f = FindFacts(store);
  if (f == nullptr || !f->is_store()) f = FindFacts(kFallbackStore);
  return f->figures;
}

uint64_t RawBytes(const Spec& spec) {
  // 100.625 bytes per account pair, kept in integer eighths.
  return spec.accounts * 805 / 8 + spec.storage_slots() * (52 + 32);
}

FsStoreEstimate EstimateFsStore(const Spec& spec, uint64_t block_bytes) {
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

uint64_t EstimateDiskBytes(const Spec& spec, const std::string& store) {
  const StoreFigures& f = FiguresOf(store);
  if (f.disk_factor == 0) return EstimateFsStore(spec).disk_bytes * 11 / 10;
  return static_cast<uint64_t>(RawBytes(spec) * f.disk_factor * 1.10) +
         (64ULL << 20);
}

double WriterRate(const StoreFigures& f) {
  return std::max(f.pairs_per_second, f.pairs_per_second_2);
}

double ParallelShare(const StoreFigures& f) {
  if (f.pairs_per_second <= 0 || f.pairs_per_second_2 <= 0) return 0;
  return std::clamp(2 * (1 - f.pairs_per_second / f.pairs_per_second_2), 0.0,
                    1.0);
}

double EstimateBuildSeconds(const Spec& spec, const std::string& store,
                            unsigned jobs) {
  const StoreFigures& f = FiguresOf(store);
  const double n = std::max(1u, jobs);
  const double one = OneJobSeconds(spec, f);
  if (f.one_writer) {
    // From two jobs on, the keys and values are made beside the engine's
    // one writer, which then sets the pace: its measured rate, whatever
    // the jobs. Amdahl's law would let the other jobs divide the writer's
    // part too, and underprice it on a many-core host (RESEARCH.md
    // section 6, "The gen time model").
    if (n < 2) return f.setup_seconds + one;
    const double pairs =
        static_cast<double>(spec.accounts + spec.storage_slots());
    return f.setup_seconds + std::max(one / n, pairs / WriterRate(f));
  }
  const double p = ParallelShare(f);
  return f.setup_seconds + one * ((1 - p) + p / n);
}

double EstimateAgeSeconds(const Spec& spec, const std::string& store,
                          uint64_t blocks, uint32_t changes,
                          uint64_t merge_every, unsigned jobs) {
  const StoreFigures& f = FiguresOf(store);
  double s = static_cast<double>(blocks) * f.age_seconds_per_block *
             static_cast<double>(changes) / 2000.0;
  if (f.merge_pairs_per_second > 0) {
    const uint64_t every = std::max<uint64_t>(1, merge_every);
    const double merges = static_cast<double>((blocks + every - 1) / every);
    const double pairs =
        static_cast<double>(spec.accounts + spec.storage_slots());
    const double rate = f.merge_pairs_per_second * (jobs >= 2 ? 1.0 : 0.5);
    s += merges * pairs / rate;
  }
  return s;
}

double EstimateGenSeconds(const Spec& spec,
                          const std::vector<std::string>& stores, unsigned jobs,
                          unsigned cores) {
  return EstimateGenSeconds(spec, stores, jobs, cores, {});
}

double EstimateGenSeconds(const Spec& spec,
                          const std::vector<std::string>& stores, unsigned jobs,
                          unsigned cores,
                          const std::map<std::string, double>& factors) {
  const unsigned n = std::max(1u, std::min(jobs, cores));
  double work = 0, longest = 0, setup = 0;
  for (const auto& s : stores) {
    const StoreFigures& f = FiguresOf(s);
    auto it = factors.find(s);
    const double factor = it == factors.end() ? 1.0 : it->second;
    // A server's start waits and takes no core; it counts once, in its
    // store's own time.
    work += factor * OneJobSeconds(spec, f);
    setup += factor * f.setup_seconds;
    longest = std::max(longest, factor * EstimateBuildSeconds(spec, s, n));
  }
  if (n == 1) return work + setup;
  return std::max(work / n, longest);
}

uint64_t EstimateGeneratorBytes(const Spec& spec, unsigned jobs) {
  const uint64_t n = std::max(1u, jobs);
  const uint64_t per_bucket_accounts = spec.accounts / 256 + 1;
  const uint64_t batch =
      std::max<uint64_t>(128 * per_bucket_accounts,
                         96 * per_bucket_accounts * spec.slots_per_account);
  const uint64_t shard =
      std::max<uint64_t>(per_bucket_accounts * 805 / 8,
                         per_bucket_accounts * spec.slots_per_account * 84);
  const uint64_t counters = 4 * spec.accounts * (n > 1 ? 2 : 1);
  // A loader's unit in flight: an arena shard (pairs and image) or a
  // RocksDB SST chunk of at most 64 MB.
  const uint64_t loader_unit = std::max<uint64_t>(shard * 22 / 10, 64 << 20);
  return counters + (n + 1) * batch * 3 / 2 + (n + 1) * loader_unit;
}

}  // namespace flatbench::dataset
