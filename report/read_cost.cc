#include "report/read_cost.h"

#include <vector>

#include "common/results_schema.h"
#include "report/interval.h"
#include "report/numbers.h"

namespace flatbench::report {
namespace {

namespace r = flatbench::results;

// The field of ReadCost or LevelReadCost a backend counter fills.
double ReadCost::*TotalField(const r::BackendCounter* c) {
  if (c->name == r::kDataBlocksRead.name) return &ReadCost::data_blocks;
  if (c->name == r::kIndexBlocksRead.name) return &ReadCost::index_blocks;
  if (c->name == r::kFilterBlocksRead.name) return &ReadCost::filter_blocks;
  if (c->name == r::kFilterProbes.name) return &ReadCost::filter_probes;
  if (c->name == r::kFilterFalsePositives.name) {
    return &ReadCost::filter_false_positives;
  }
  if (c->name == r::kBlockCacheMisses.name) {
    return &ReadCost::block_cache_misses;
  }
  if (c->name == r::kBlockCacheHits.name) return &ReadCost::block_cache_hits;
  return nullptr;
}

double LevelReadCost::*LevelField(const r::BackendCounter* c) {
  if (c->name == r::kFilterProbes.name) return &LevelReadCost::filter_probes;
  if (c->name == r::kFilterFalsePositives.name) {
    return &LevelReadCost::filter_false_positives;
  }
  if (c->name == r::kBlockCacheMisses.name) {
    return &LevelReadCost::block_cache_misses;
  }
  return nullptr;
}

}  // namespace

ReadCost ReadCostOf(const ResultSet& results, const CellKey& cell) {
  // Each key's values over the passes; a level a pass did not reach read
  // nothing there, so it counts 0 in that pass.
  std::map<std::string, std::vector<double>> values;
  size_t passes = 0;
  for (const Pass& p : results.passes) {
    if (p.error || p.cell != cell || p.backend_counters.empty()) continue;
    ++passes;
    for (const auto& [key, v] : p.backend_counters) {
      values[key].resize(passes - 1, 0.0);
      values[key].push_back(v);
    }
  }
  ReadCost cost;
  cost.passes = passes;
  for (auto& [key, v] : values) {
    v.resize(passes, 0.0);
    auto parsed = r::ParseBackendCounterKey(key);
    if (!parsed) continue;  // ReadEntry admits contract names only.
    const double median = Median(v);
    if (parsed->level < 0) {
      if (auto field = TotalField(parsed->counter)) cost.*field = median;
    } else if (auto field = LevelField(parsed->counter)) {
      cost.levels[parsed->level].*field = median;
    }
  }
  return cost;
}

std::string PerLevelText(const ReadCost& cost, double LevelReadCost::*field,
                         int decimals) {
  std::string out;
  for (const auto& [level, c] : cost.levels) {
    if (std::isnan(c.*field)) continue;
    out += (out.empty() ? "" : ", ") + std::string("L") +
           std::to_string(level) + " " + Fixed(c.*field, decimals);
  }
  return out.empty() ? "–" : out;
}

}  // namespace flatbench::report
