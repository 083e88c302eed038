#pragma once
// SQLite's read metadata: the interior pages of its B-trees.
//
// In cold mode every backend starts a pass with its read metadata resident
// and its data not (RESEARCH.md, "Modes"): the arena its index and filter,
// RocksDB its index and filter blocks, LMDB its branch pages, SQLite the
// interior pages of each table's B-tree. SQLite has no API that names
// them, so this walks each tree from its root page (sqlite_schema's
// rootpage) by the documented file format (sqlite.org/fileformat2.html,
// "B-tree Pages") and reads every interior page with pread, which puts it in
// the page cache that every connection's reads then find. Leaf pages are
// never read except one per tree: the first child of a bottom interior page
// is read to learn that the level below is the leaf level.

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace flatbench::baselines {

struct InteriorPreload {
  uint64_t pages = 0;  // Pages read: page 1, interior pages, one leaf each.
  uint64_t bytes = 0;
};

// Reads page 1 and every interior page of the B-trees rooted at `roots` in
// the database file `path`. A page number past the end of the file, or a
// page whose type byte or cell pointers do not fit the format, is
// kCorruption naming the file and page.
Result<InteriorPreload> PreloadInteriorPages(
    const std::string& path, const std::vector<uint32_t>& roots);

}  // namespace flatbench::baselines
