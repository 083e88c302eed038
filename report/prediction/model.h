#pragma once
// The geometric model: storage reads per cold hit and per cold miss,
// computed from a dataset's own structure (common/backend.h ReadGeometry,
// recorded by `flatbench sweep`), never fitted to measurements.
//
// A cold read needs the backend's read metadata (index and filter; LMDB's
// branch pages) resident and reads its data from storage. Per table:
//
//   data pages   the 4 KiB pages one data unit spans: for page-aligned
//                units (arena blocks, LMDB pages) max(1, unit / 4096); for
//                RocksDB's unaligned blocks, read with their 5-byte trailer
//                at a uniformly random offset, 1 + (unit + 5 - 1) / 4096.
//   resident     f = min(1, (RAM - reserve) / metadata bytes of both
//                tables): the share of the metadata the page cache or heap
//                can hold. A lookup touches one index page (LMDB: the
//                bottom branch level, which holds nearly all branch bytes;
//                the levels above it are touched by every read and stay
//                resident) and, with a filter, one filter page; each is a
//                storage read with probability 1 - f.
//   per hit      data pages + (1 - f) x (1 + has filter)
//   per miss     fp x data pages + (1 - f) x (has filter + fp), where fp
//                is the filter's false-positive rate (1 without a filter:
//                LMDB reads the leaf that would hold the key).
//
// One pass reads `reads` distinct keys, uniformly over the table; when the
// table is small, some of them land on pages an earlier read of the same
// pass brought in, and those are not read again. Of P data pages, with k
// pages per read, a pass of r reads touches P (1 - exp(-r k / P)) distinct
// pages, so each read costs k x share, share = P (1 - exp(-r k / P)) / (r k)
// (1 for r = 0: independent reads, the limit of a large table). A miss
// pass reads data for only the fp share of its keys.
//
// Misses of both kinds (absent account, live account with an unused slot)
// cost the same in this model: the filters hold whole keys.

#include <cstdint>
#include <map>
#include <string>

#include "common/backend.h"

namespace flatbench::report {

// The RAM RESEARCH.md requires of a full-scale host (section 6), and what
// the model leaves to the system, the process and its reader threads.
inline constexpr uint64_t kRequiredRamBytes = 16'000'000'000ULL;
inline constexpr uint64_t kRamReserveBytes = 2ULL << 30;
inline constexpr double kPageBytes = 4096;

struct BackendGeometry {
  ReadGeometry tables[kNumTables];
  const ReadGeometry& at(flatbench::Table t) const {
    return tables[static_cast<int>(t)];
  }
  uint64_t MetadataBytes() const;
  uint64_t Pairs() const;
};

struct TableCost {
  double data_pages = 0;  // Pages one data unit read takes.
  double hit_reads = 0;   // Expected 4 KiB storage reads per hit.
  double miss_reads = 0;  // Per miss.
};

struct ModelPrediction {
  uint64_t metadata_bytes = 0;   // Both tables' index and filter.
  double resident_fraction = 1;  // f above.
  TableCost tables[kNumTables];
  const TableCost& at(flatbench::Table t) const {
    return tables[static_cast<int>(t)];
  }
};

// The model's figures for `g` on a host with `ram_bytes` of RAM, for passes
// of `reads_per_pass` distinct keys (0: independent reads).
ModelPrediction Predict(const BackendGeometry& g, uint64_t ram_bytes,
                        uint64_t reads_per_pass);

// `g` grown to `account_pairs` and `storage_pairs`: every count and byte
// figure in proportion to its table's pairs (blocks, index entries and
// filter bits are per key); LMDB's branch levels grow by the logarithm of
// the leaf count in base of its measured fan-out.
BackendGeometry ScaleTo(const BackendGeometry& g, uint64_t account_pairs,
                        uint64_t storage_pairs);

// Total pairs (in this dataset's account/storage proportion) at which the
// metadata no longer fits in `ram_bytes` less the reserve; infinity when
// the backend keeps none.
double PairsWhereMetadataStopsFitting(const BackendGeometry& g,
                                      uint64_t ram_bytes);

}  // namespace flatbench::report
