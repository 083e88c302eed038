#pragma once
// What RocksDB's point reads cost in its own counts, from its per-thread
// perf context (rocksdb/perf_context.h): blocks read by kind, and per level
// the filter's probes and false positives and the block cache's hits and
// misses. And the store's levels, as its metadata shows them at open.

#include <rocksdb/db.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>

#include <cstdint>
#include <map>

#include "common/backend.h"

namespace flatbench::baselines {

// Counts one thread's reads between Start and Take. Not thread-safe: both
// run on the thread that reads, since the perf context is that thread's.
class RocksReadCost {
 public:
  RocksReadCost() = default;
  RocksReadCost(const RocksReadCost&) = delete;
  RocksReadCost& operator=(const RocksReadCost&) = delete;
  // Restores the thread's perf level if Take never did.
  ~RocksReadCost();
  // Turns on counting (PerfLevel::kEnableCount, per-level counts) on the
  // calling thread and remembers the counters as they stand. The first call
  // on a thread allocates RocksDB's per-level map; a read allocates nothing
  // more, except the first read in each level.
  void Start();
  // The counts of the calling thread's reads since Start, named as the
  // results contract's backend counters (common/results_schema.h), and
  // the thread's perf level as it was before Start. Empty if not started.
  ReadCost Take();

 private:
  struct Totals {
    uint64_t blocks = 0, index_blocks = 0, filter_blocks = 0, dict_blocks = 0;
    std::map<uint32_t, rocksdb::PerfContextByLevel> levels;
  };
  static Totals Now();
  void Restore();

  bool started_ = false;
  rocksdb::PerfLevel level_before_ = rocksdb::PerfLevel::kDisable;
  bool per_level_before_ = false;
  Totals base_;
};

// The levels of each family of `families` (named by `names`), as the aged
// store's marker records them: "<name>.levels" ("Ln:files/bytes" for each
// level that holds files), "<name>.l0_files" and "<name>.sst_bytes".
Settings RocksLevelShape(rocksdb::DB* db,
                         rocksdb::ColumnFamilyHandle* const* families,
                         const char* const* names, int count);

}  // namespace flatbench::baselines
