#pragma once
// RocksDB aged as a node writes it (flatbench age): the database opened
// read-write with the production options, one WriteBatch per block through
// the WAL, automatic flushes and compactions running, nothing compacted by
// hand.

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Opens the database in `dir` for writing. Checkpoint syncs the WAL;
// Finish flushes the memtables, waits for the compactions RocksDB has
// started or queued to end, and closes. Upkeep: per family, files and bytes
// per level; the database's user, WAL, flush and compaction bytes written
// (RocksDB's statistics).
Result<std::unique_ptr<StoreWriter>> NewRocksDbWriter(const std::string& dir);

}  // namespace flatbench::baselines
