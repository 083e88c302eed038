#include "baselines/rocksdb_geometry.h"

#include <cmath>

namespace flatbench::baselines {

Result<ReadGeometry> RocksGeometry(rocksdb::DB* db,
                                   rocksdb::ColumnFamilyHandle* family) {
  rocksdb::TablePropertiesCollection props;
  rocksdb::Status s = db->GetPropertiesOfAllTables(family, &props);
  if (!s.ok()) {
    return Status::IOError("rocksdb table properties: " + s.ToString());
  }
  ReadGeometry g;
  for (const auto& [file, p] : props) {
    g.pairs += p->num_entries;
    g.data_units += p->num_data_blocks;
    g.data_bytes += p->data_size;
    g.index_bytes += p->index_size;
    g.filter_bytes += p->filter_size;
  }
  g.data_page_aligned = false;
  g.index_levels = 1;  // kBinarySearch: one index block per table file.
  // A Ribbon filter stores within a few percent of the information-
  // theoretic minimum, log2(1/fp) bits per key, so its false-positive rate
  // follows from the bits it actually spends per key.
  if (g.filter_bytes > 0 && g.pairs > 0) {
    const double bits_per_key = 8.0 * static_cast<double>(g.filter_bytes) /
                                static_cast<double>(g.pairs);
    g.filter_fp_rate = std::pow(2.0, -bits_per_key);
  }
  return g;
}

}  // namespace flatbench::baselines
