#pragma once
// The production flat-state RocksDB configuration (see RESEARCH.md,
// "RocksDB"), shared by the loader and the reader so both use the same
// table format.

#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <memory>
#include <string>
#include <vector>

#include "common/backend.h"

namespace flatbench::baselines {

inline constexpr size_t kRocksAccountCacheBytes = 300ULL << 20;
inline constexpr size_t kRocksStorageCacheBytes = 700ULL << 20;

// RocksDB's status as ours, with `what` (a path, an operation) in front
// unless the message names it already: kMissingInput, kCorruption (bad
// data, an invalid argument), else kIOError.
Status FromRocks(const rocksdb::Status& s, const std::string& what);

// Column family options for `table`. `lazy_metadata` selects
// cache_index_and_filter_blocks=true (the cold-lazy mode).
rocksdb::ColumnFamilyOptions RocksTableOptions(Table table, bool lazy_metadata);
rocksdb::DBOptions RocksDbOptions();
// SST file size the loader aims for (the families' target_file_size_base).
uint64_t SstTargetBytes(Table table);
// {default, account, storage}: RocksDB requires the default family.
std::vector<rocksdb::ColumnFamilyDescriptor> RocksFamilies(bool lazy_metadata);
// The options in force, for the report.
Settings RocksSettings(bool lazy_metadata);

}  // namespace flatbench::baselines
