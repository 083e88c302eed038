#pragma once
// LMDB open for reading and writing at once (bench --write-while-
// reading): one environment in this process (LMDB allows no second one on
// the same files), whose readers and writer share it.

#include <memory>
#include <string>

#include "common/backend.h"
#include "common/live_store.h"

namespace flatbench::baselines {

// Opens the environment in `dir` with MDB_NOSYNC | MDB_NORDAHEAD |
// MDB_NOTLS. The writer applies a write transaction per block (no
// MDB_APPEND); Checkpoint and Finish sync. A reader session keeps one read
// transaction and renews it before each Get and Scan (mdb_txn_reset and
// mdb_txn_renew, as a node's request does), so each read sees the last
// committed block. The map is sized at open to twice the data file and
// 1 GiB more: LMDB cannot grow it while readers hold transactions, so a
// block that finds it full is kIOError naming the map, not a retry.
Result<std::unique_ptr<LiveStore>> OpenLmdbLive(const std::string& dir,
                                                const OpenOptions& options,
                                                const WriterOptions& writer);

}  // namespace flatbench::baselines
