#pragma once
// LMDB baseline: one environment, two named databases (account, storage).

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Opens the environment in `dir` with MDB_RDONLY | MDB_NORDAHEAD. Each
// session holds one long-lived read transaction; a value view stays valid
// until that session is destroyed.
Result<std::unique_ptr<Backend>> OpenLmdb(const std::string& dir,
                                          const OpenOptions& options);

// A loader that appends ascending pairs with MDB_APPEND. `expected_bytes`
// (keys plus values of both tables) sizes the map.
Result<std::unique_ptr<BulkLoader>> NewLmdbLoader(const std::string& dir,
                                                  uint64_t expected_pairs,
                                                  uint64_t expected_bytes);

}  // namespace flatbench::baselines
