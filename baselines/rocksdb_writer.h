#pragma once
// RocksDB aged as a node writes it (flatbench age): the database opened
// read-write with the production options, one WriteBatch per block through
// the WAL, automatic flushes and compactions running, nothing compacted by
// hand.

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Opens the database in `dir` for writing with the production options; a
// store still in its bulk-loaded shape is relevelled first
// (rocksdb_write_path.h; progress lines with options.progress, stopped by
// options.stop). Checkpoint flushes and syncs the WAL; Finish flushes the
// memtables, waits for the compactions RocksDB has started or queued to
// end, and closes. Steady: once compactions have written the store's size
// as opened. Upkeep: per family, files and bytes per level; the database's
// user, WAL, flush and compaction bytes written (RocksDB's statistics).
Result<std::unique_ptr<StoreWriter>> NewRocksDbWriter(
    const std::string& dir, const WriterOptions& options);

}  // namespace flatbench::baselines
