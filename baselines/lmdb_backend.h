#pragma once
// LMDB baseline: one environment, two named databases (account, storage).

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Opens the environment in `dir` with MDB_RDONLY | MDB_NORDAHEAD. Each
// session holds one long-lived read transaction; a value view stays valid
// until that session is destroyed. Before LMDB maps data.mdb, its meta pages
// are read and a file shorter than they claim is kCorruption with the
// figures (see lmdb_meta.h), never a SIGBUS.
Result<std::unique_ptr<Backend>> OpenLmdb(const std::string& dir,
                                          const OpenOptions& options);

// A loader that appends ascending pairs with MDB_APPEND. `expected_bytes`
// (keys plus values of both tables) sizes the map.
Result<std::unique_ptr<BulkLoader>> NewLmdbLoader(const std::string& dir,
                                                  uint64_t expected_pairs,
                                                  uint64_t expected_bytes);

// The backend's OpenScan is an LMDB cursor in its own read transaction.
// LMDB keeps no checksums and has no whole-file check; CheckIntegrity reads
// every page of both trees with pread and checks it as get's walk checks
// the pages on a key's path (lmdb_path.h CheckLmdbTrees). When LMDB's own
// assertions stop it on a damaged page, the process prints one line naming
// data.mdb, with LMDB's text, and exits 65 instead of aborting.

// The linked LMDB's version text (mdb_version).
std::string LmdbVersion();

}  // namespace flatbench::baselines
