#pragma once
// LMDB's read metadata: the branch pages of its B+trees.
//
// In cold mode every backend starts a pass with its read metadata resident
// and its data not (RESEARCH.md, section 4): the arena its index and filter,
// RocksDB its index and filter blocks, LMDB its branch pages. LMDB has no
// API that names its pages, so this walks each named database's tree from
// its root (mdb_get on the unnamed database returns a named database's
// record, whose depth and root page LMDB documents in its MDB_db layout)
// and reads every branch page with pread, which puts it in the page cache
// that LMDB's own map then finds. Leaf pages are never read: the walk stops
// one level above them.

#include <lmdb.h>

#include <cstdint>
#include <string>

#include "common/status.h"

namespace flatbench::baselines {

struct BranchPreload {
  uint64_t pages = 0;  // Branch and meta pages read.
  uint64_t bytes = 0;
};

// Reads the two meta pages and every branch page of the named databases
// `names` of the environment whose data file is `data_path`. `txn` is a
// read transaction of that environment. The walked branch page count is
// checked against mdb_stat; a mismatch or a page that is not a branch page
// where one must be is kCorruption naming the file and page.
Result<BranchPreload> PreloadBranchPages(MDB_env* env, MDB_txn* txn,
                                         const std::string& data_path,
                                         const char* const* names, int count);

}  // namespace flatbench::baselines
