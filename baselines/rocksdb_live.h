#pragma once
// RocksDB open for reading and writing at once (bench --write-while-
// reading): one read-write DB object with the production options
// (rocksdb_options.h: the families' write options, the WAL as the seed
// client writes it), which the readers' sessions and the writer share.

#include <memory>
#include <string>

#include "common/backend.h"
#include "common/live_store.h"

namespace flatbench::baselines {

// Opens the database in `dir` read-write. The writer applies one
// WriteBatch per block with RocksDB's automatic flushes and compactions
// running (nothing compacted by hand, no relevel: the store takes blocks in
// whatever shape it has); Checkpoint flushes and syncs the WAL; Finish
// flushes the memtables and waits for the background work to end.
// Sessions read without a snapshot (rocksdb_backend.h RocksDbBackendOver).
// Background: the compactions that ended since the open and the bytes
// they wrote (RocksDB's statistics). kMissingInput without a database.
Result<std::unique_ptr<LiveStore>> OpenRocksDbLive(const std::string& dir,
                                                   const OpenOptions& options,
                                                   const WriterOptions& writer);

}  // namespace flatbench::baselines
