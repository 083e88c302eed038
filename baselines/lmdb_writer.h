#pragma once
// LMDB aged as a node writes it (flatbench age): one write transaction per
// block, keys put where they belong (no MDB_APPEND), pages freed by
// copy-on-write reused from LMDB's free list.

#include <lmdb.h>

#include <memory>
#include <span>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Opens the environment in `dir` for writing (MDB_NOSYNC: Checkpoint and
// Finish sync it, as RocksDB's WAL is synced at the same points). When a
// block finds the map full, the map grows by half and the block is
// applied again. Upkeep: the file's pages and LMDB's free pages, and per
// table its depth and branch, leaf and overflow pages.
Result<std::unique_ptr<StoreWriter>> NewLmdbWriter(const std::string& dir);

// A block's changes in `txn`, each table's in its DBI (dbis[Table]): an
// erase of a key already gone is a block applied before (StoreWriter).
// MDB_SUCCESS, or the first LMDB code; the caller aborts or commits.
int PutBlock(MDB_txn* txn, const MDB_dbi* dbis,
             std::span<const KeyChange> changes);

}  // namespace flatbench::baselines
