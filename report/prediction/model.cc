#include "report/prediction/model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "report/page_share.h"

namespace flatbench::report {
namespace {

// RocksDB's block trailer: a compression-type byte and a 32-bit checksum,
// read with the block.
constexpr double kRocksTrailerBytes = 5;

double DataPages(const ReadGeometry& g) {
  if (g.data_units == 0) return 0;
  const double unit =
      static_cast<double>(g.data_bytes) / static_cast<double>(g.data_units);
  if (g.data_page_aligned) return std::max(1.0, unit / kPageBytes);
  return 1.0 + (unit + kRocksTrailerBytes - 1) / kPageBytes;
}

// Data pages of the table: aligned units each fill their own pages.
double TablePages(const ReadGeometry& g, double pages_per_unit) {
  if (g.data_page_aligned) {
    return static_cast<double>(g.data_units) * pages_per_unit;
  }
  return static_cast<double>(g.data_bytes) / kPageBytes;
}

uint64_t Scale(uint64_t v, double factor) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(v) * factor));
}

}  // namespace

uint64_t BackendGeometry::MetadataBytes() const {
  uint64_t total = 0;
  for (const auto& t : tables) total += t.index_bytes + t.filter_bytes;
  return total;
}

uint64_t BackendGeometry::Pairs() const {
  return tables[0].pairs + tables[1].pairs;
}

ModelPrediction Predict(const BackendGeometry& g, uint64_t ram_bytes,
                        uint64_t reads_per_pass) {
  ModelPrediction p;
  p.metadata_bytes = g.MetadataBytes();
  const double budget = ram_bytes > kRamReserveBytes
                            ? static_cast<double>(ram_bytes - kRamReserveBytes)
                            : 0.0;
  p.resident_fraction =
      p.metadata_bytes == 0
          ? 1.0
          : std::min(1.0, budget / static_cast<double>(p.metadata_bytes));
  const double missing = 1.0 - p.resident_fraction;
  for (int t = 0; t < kNumTables; ++t) {
    const ReadGeometry& tg = g.tables[t];
    TableCost& c = p.tables[t];
    const bool filter = tg.filter_bytes > 0 && tg.filter_fp_rate < 1.0;
    const double fp = filter ? tg.filter_fp_rate : 1.0;
    const double index = tg.index_levels > 0 ? 1.0 : 0.0;
    c.data_pages = DataPages(tg);
    const double pages = TablePages(tg, c.data_pages);
    const double r = static_cast<double>(reads_per_pass);
    c.hit_reads = c.data_pages * PassShare(pages, c.data_pages, r) +
                  missing * (index + (filter ? 1.0 : 0.0));
    c.miss_reads = fp * c.data_pages * PassShare(pages, c.data_pages, fp * r) +
                   missing * ((filter ? 1.0 : 0.0) + fp * index);
  }
  return p;
}

BackendGeometry ScaleTo(const BackendGeometry& g, uint64_t account_pairs,
                        uint64_t storage_pairs) {
  BackendGeometry out = g;
  const uint64_t target[kNumTables] = {account_pairs, storage_pairs};
  for (int t = 0; t < kNumTables; ++t) {
    const ReadGeometry& in = g.tables[t];
    ReadGeometry& o = out.tables[t];
    if (in.pairs == 0) continue;
    const double f =
        static_cast<double>(target[t]) / static_cast<double>(in.pairs);
    o.pairs = target[t];
    o.data_units = Scale(in.data_units, f);
    o.data_bytes = Scale(in.data_bytes, f);
    o.index_bytes = Scale(in.index_bytes, f);
    o.filter_bytes = Scale(in.filter_bytes, f);
    // A B+tree (more than one branch level: LMDB) gains a level each time
    // its leaves multiply by the fan-out; the arena's and RocksDB's indexes
    // are flat (one level, searched in memory).
    if (in.index_levels > 1 && in.index_bytes > 0 && in.data_units > 1) {
      const double branch_pages =
          static_cast<double>(in.index_bytes) / kPageBytes;
      const double fanout = static_cast<double>(in.data_units) / branch_pages;
      if (fanout > 1.5) {
        // Branch levels above the leaves: log base fan-out of the leaves.
        o.index_levels = static_cast<uint32_t>(std::ceil(
            std::log(static_cast<double>(o.data_units)) / std::log(fanout)));
        o.index_levels = std::max(o.index_levels, in.index_levels);
      }
    }
  }
  return out;
}

double PairsWhereMetadataStopsFitting(const BackendGeometry& g,
                                      uint64_t ram_bytes) {
  const uint64_t meta = g.MetadataBytes();
  if (meta == 0 || g.Pairs() == 0) {
    return std::numeric_limits<double>::infinity();
  }
  const double budget = ram_bytes > kRamReserveBytes
                            ? static_cast<double>(ram_bytes - kRamReserveBytes)
                            : 0.0;
  return budget / (static_cast<double>(meta) / static_cast<double>(g.Pairs()));
}

}  // namespace flatbench::report
