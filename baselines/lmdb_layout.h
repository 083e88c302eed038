#pragma once
// LMDB 0.9's on-disk layout, 64-bit builds (lmdb's mdb.c: MDB_page,
// MDB_node, MDB_meta, MDB_db), for the code that reads data.mdb pages with
// pread before trusting them: the meta pages (lmdb_meta.cc), the branch-page
// preload (lmdb_pages.cc), the checked pages (lmdb_page_check.cc) and the
// checked lookup path and whole-tree check over them (lmdb_path.cc).

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace flatbench::baselines::lmdb_layout {

// A page: page number (u64), pad, flags at 10, lower and upper bounds of
// its free space at 12 and 14, then u16 node offsets.
inline constexpr size_t kPageHeader = 16;      // PAGEHDRSZ
inline constexpr size_t kFlagsOffset = 10;     // mp_flags
inline constexpr size_t kLowerOffset = 12;     // mp_lower: end of node offsets
inline constexpr size_t kUpperOffset = 14;     // mp_upper
inline constexpr uint16_t kBranchPage = 0x01;  // P_BRANCH
inline constexpr uint16_t kLeafPage = 0x02;    // P_LEAF
// A database record (MDB_db).
inline constexpr size_t kDbRecordSize = 48;      // sizeof(MDB_db)
inline constexpr size_t kDbFlagsOffset = 4;      // md_flags
inline constexpr size_t kDbDepthOffset = 6;      // md_depth
inline constexpr size_t kDbBranchOffset = 8;     // md_branch_pages
inline constexpr size_t kDbLeafOffset = 16;      // md_leaf_pages
inline constexpr size_t kDbOverflowOffset = 24;  // md_overflow_pages
inline constexpr size_t kDbEntriesOffset = 32;   // md_entries
inline constexpr size_t kDbRootOffset = 40;      // md_root
inline constexpr uint64_t kInvalidPage = ~0ULL;  // P_INVALID: empty database

inline uint16_t Load16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace flatbench::baselines::lmdb_layout
