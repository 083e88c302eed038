#include "baselines/rocksdb_read_cost.h"

#include <string>

#include "common/results_schema.h"

namespace flatbench::baselines {
namespace {

namespace r = flatbench::results;

// a - b, or a when the counter was reset in between (it only grows).
uint64_t CountSince(uint64_t a, uint64_t b) { return a >= b ? a - b : a; }

}  // namespace

RocksReadCost::~RocksReadCost() {
  if (started_) Restore();
}

RocksReadCost::Totals RocksReadCost::Now() {
  const rocksdb::PerfContext& pc = *rocksdb::get_perf_context();
  Totals t;
  t.blocks = pc.block_read_count;
  t.index_blocks = pc.index_block_read_count;
  t.filter_blocks = pc.filter_block_read_count;
  t.dict_blocks = pc.compression_dict_block_read_count;
  if (pc.level_to_perf_context != nullptr) t.levels = *pc.level_to_perf_context;
  return t;
}

void RocksReadCost::Start() {
  if (!started_) {
    level_before_ = rocksdb::GetPerfLevel();
    per_level_before_ =
        rocksdb::get_perf_context()->per_level_perf_context_enabled;
  }
  rocksdb::SetPerfLevel(rocksdb::PerfLevel::kEnableCount);
  rocksdb::get_perf_context()->EnablePerLevelPerfContext();
  base_ = Now();
  started_ = true;
}

void RocksReadCost::Restore() {
  rocksdb::SetPerfLevel(level_before_);
  if (!per_level_before_) {
    rocksdb::get_perf_context()->DisablePerLevelPerfContext();
  }
  started_ = false;
}

ReadCost RocksReadCost::Take() {
  if (!started_) return {};
  const Totals now = Now();
  Restore();
  const uint64_t index = CountSince(now.index_blocks, base_.index_blocks);
  const uint64_t filter = CountSince(now.filter_blocks, base_.filter_blocks);
  const uint64_t dict = CountSince(now.dict_blocks, base_.dict_blocks);
  const uint64_t blocks = CountSince(now.blocks, base_.blocks);
  // block_read_count counts every block read from a file; the data blocks
  // are what is left after the metadata blocks.
  const uint64_t meta = index + filter + dict;
  ReadCost cost = {
      {std::string(r::kDataBlocksRead.name), blocks > meta ? blocks - meta : 0},
      {std::string(r::kIndexBlocksRead.name), index},
      {std::string(r::kFilterBlocksRead.name), filter}};
  // Filter and cache counts exist per level only; the totals are their
  // sums, so they always agree.
  uint64_t probes = 0, false_positives = 0, misses = 0, hits = 0;
  for (const auto& [level, c] : now.levels) {
    rocksdb::PerfContextByLevel b;
    if (auto it = base_.levels.find(level); it != base_.levels.end()) {
      b = it->second;
    }
    const uint64_t useful =
        CountSince(c.bloom_filter_useful, b.bloom_filter_useful);
    const uint64_t positive =
        CountSince(c.bloom_filter_full_positive, b.bloom_filter_full_positive);
    const uint64_t true_positive = CountSince(
        c.bloom_filter_full_true_positive, b.bloom_filter_full_true_positive);
    const uint64_t level_misses =
        CountSince(c.block_cache_miss_count, b.block_cache_miss_count);
    const uint64_t level_hits =
        CountSince(c.block_cache_hit_count, b.block_cache_hit_count);
    // A positive that found no key in the file: the filter's false
    // positive (a key found, or its tombstone, is a true one).
    const uint64_t level_fp =
        positive > true_positive ? positive - true_positive : 0;
    if (useful + positive + level_misses + level_hits == 0) continue;
    const int l = static_cast<int>(level);
    cost.emplace_back(r::LevelCounterName(l, r::kFilterProbes),
                      useful + positive);
    cost.emplace_back(r::LevelCounterName(l, r::kFilterFalsePositives),
                      level_fp);
    cost.emplace_back(r::LevelCounterName(l, r::kBlockCacheMisses),
                      level_misses);
    cost.emplace_back(r::LevelCounterName(l, r::kBlockCacheHits), level_hits);
    probes += useful + positive;
    false_positives += level_fp;
    misses += level_misses;
    hits += level_hits;
  }
  cost.emplace_back(std::string(r::kFilterProbes.name), probes);
  cost.emplace_back(std::string(r::kFilterFalsePositives.name),
                    false_positives);
  cost.emplace_back(std::string(r::kBlockCacheMisses.name), misses);
  cost.emplace_back(std::string(r::kBlockCacheHits.name), hits);
  return cost;
}

Settings RocksLevelShape(rocksdb::DB* db,
                         rocksdb::ColumnFamilyHandle* const* families,
                         const char* const* names, int count) {
  Settings s;
  for (int i = 0; i < count; ++i) {
    rocksdb::ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(families[i], &meta);
    std::string levels;
    for (const auto& level : meta.levels) {
      if (level.files.empty()) continue;
      if (!levels.empty()) levels += " ";
      levels += "L" + std::to_string(level.level) + ":" +
                std::to_string(level.files.size()) + "/" +
                std::to_string(level.size);
    }
    const std::string p = std::string(names[i]) + ".";
    s.emplace_back(p + "levels", levels);
    s.emplace_back(
        p + "l0_files",
        std::to_string(meta.levels.empty() ? 0 : meta.levels[0].files.size()));
    s.emplace_back(p + "sst_bytes", std::to_string(meta.size));
  }
  return s;
}

}  // namespace flatbench::baselines
