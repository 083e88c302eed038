#pragma once
// RocksDB's read geometry of one column family (common/backend.h
// ReadGeometry), summed over its table files' properties.

#include <rocksdb/db.h>

#include "common/backend.h"

namespace flatbench::baselines {

// Sums `family`'s SST table properties: entries, data blocks and bytes,
// index and filter bytes. kIOError if RocksDB cannot read them.
Result<ReadGeometry> RocksGeometry(rocksdb::DB* db,
                                   rocksdb::ColumnFamilyHandle* family);

}  // namespace flatbench::baselines
