#pragma once
// A checked lookup in an LMDB data file, read with pread, for `get`; and
// the same checks over every page of its trees, for `verify`.
//
// LMDB keeps no checksums and follows its pages as it finds them: a damaged
// page can send it past the end of its map (SIGBUS) or to a wrong answer.
// This walk reads the same pages LMDB's own lookup reads (the newer meta
// page, the main database's tree down to the named database's record, that
// database's tree down to the key's leaf) and checks each one before it
// follows it:
//
// - the page's own number, its kind (branch above the leaf level, leaf at
//   the depth its database record gives), its node bounds;
// - its nodes tile the page's node area exactly, each inside the page, with
//   the flags and key sizes this project's loader writes (no overflow, no
//   duplicate or nested data except the named databases' records);
// - its keys ascend strictly and lie within the bounds of the separators
//   that led to it, and a child page number lies inside the file.
//
// What it cannot see (LMDB stores no checksum): a changed byte inside a
// node's own key or value that keeps every key in order, and a changed
// lowest bit of a leaf node's data size, which LMDB's rounding of nodes to
// an even size hides (the value one byte short, or one byte of padding
// long).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace flatbench::baselines {

struct LmdbPathResult {
  bool found = false;
  std::string value;   // When found.
  uint64_t pages = 0;  // Pages read and checked, the meta page included.
};

// Looks `key` up in the named database `db` of the LMDB data file `path`
// (whose keys are all `key_size` bytes). kCorruption naming the file and
// page on the first defect; kMissingInput/kIOError as CheckLmdbDataFile.
Result<LmdbPathResult> CheckedLmdbLookup(const std::string& path,
                                         const std::string& db,
                                         std::string_view key, size_t key_size);

// One named database that CheckLmdbTrees walks: its name and the size of
// every key it holds.
struct LmdbTreeSpec {
  std::string name;
  size_t key_size = 0;
};

// Reads every page of the main database's tree and of each database in
// `dbs`, from the meta page a lookup reads through, and checks each one as
// CheckedLmdbLookup checks the pages on a key's path; every page is reached
// once, and each tree holds the branch pages, leaf pages and pairs its
// record counts. So any page damage that a CheckedLmdbLookup of some key
// would refuse, this refuses. Returns the pages read. kCorruption naming
// the file and the page or record on the first defect (a database of
// `dbs` missing included); kMissingInput/kIOError as CheckLmdbDataFile.
Result<uint64_t> CheckLmdbTrees(const std::string& path,
                                const std::vector<LmdbTreeSpec>& dbs);

}  // namespace flatbench::baselines
