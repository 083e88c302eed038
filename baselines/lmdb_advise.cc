#include "baselines/lmdb_advise.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "baselines/lmdb_layout.h"

namespace flatbench::baselines {

using lmdb_layout::kBranchPage;
using lmdb_layout::kDbDepthOffset;
using lmdb_layout::kDbRecordSize;
using lmdb_layout::kDbRootOffset;
using lmdb_layout::kFlagsOffset;
using lmdb_layout::kInvalidPage;
using lmdb_layout::kLowerOffset;
using lmdb_layout::kPageHeader;
using lmdb_layout::Load16;
using lmdb_layout::Load64;

Result<LmdbTree> LmdbTreeOf(MDB_txn* txn, const char* name) {
  MDB_dbi main_dbi;
  if (mdb_dbi_open(txn, nullptr, 0, &main_dbi) != MDB_SUCCESS) {
    return Status::Corruption("lmdb: cannot open the main database");
  }
  MDB_val key{std::strlen(name), const_cast<char*>(name)};
  MDB_val rec;
  if (mdb_get(txn, main_dbi, &key, &rec) != MDB_SUCCESS ||
      rec.mv_size != kDbRecordSize) {
    return Status::Corruption(std::string("lmdb: no record of database ") +
                              name);
  }
  const char* r = static_cast<const char*>(rec.mv_data);
  LmdbTree tree;
  tree.depth = Load16(r + kDbDepthOffset);
  tree.root = Load64(r + kDbRootOffset);
  return tree;
}

Result<const char*> LmdbMapBase(MDB_txn* txn, const char* name, size_t page,
                                uint64_t file_pages) {
  MDB_dbi main_dbi;
  if (mdb_dbi_open(txn, nullptr, 0, &main_dbi) != MDB_SUCCESS) {
    return Status::Corruption("lmdb: cannot open the main database");
  }
  MDB_val key{std::strlen(name), const_cast<char*>(name)};
  MDB_val rec;
  if (mdb_get(txn, main_dbi, &key, &rec) != MDB_SUCCESS) {
    return Status::Corruption(std::string("lmdb: no record of database ") +
                              name);
  }
  const uintptr_t at = reinterpret_cast<uintptr_t>(rec.mv_data);
  const char* leaf = reinterpret_cast<const char*>(at - at % page);
  const uint64_t pgno = Load64(leaf);  // mp_pgno
  if (pgno == 0 || pgno >= file_pages || pgno * page > at - at % page) {
    return Status::Corruption("lmdb: the main database's leaf names page " +
                              std::to_string(pgno));
  }
  return leaf - pgno * page;
}

// A branch page's nodes (lmdb's MDB_node): the child's page number in
// mn_lo | mn_hi << 16 | mn_flags << 32, the key's size at 6 and the key
// from 8. Node 0's key is empty: it covers everything below node 1's key.
// The comparison is LMDB's default for these keys (memcmp, then length).
uint64_t LmdbAdvisor::Child(uint64_t pgno, std::string_view key) const {
  if (pgno >= file_pages_) return kInvalidPage;
  const char* p = map_ + pgno * page_;
  if ((Load16(p + kFlagsOffset) & kBranchPage) == 0) return kInvalidPage;
  const uint16_t lower = Load16(p + kLowerOffset);
  if (lower <= kPageHeader || lower > page_) return kInvalidPage;
  const size_t nodes = (lower - kPageHeader) / 2;
  auto node = [&](size_t i) -> const char* {
    const uint16_t off = Load16(p + kPageHeader + 2 * i);
    return off + 8u <= page_ ? p + off : nullptr;
  };
  auto less_equal = [&](size_t i) {  // node i's key <= key
    const char* n = node(i);
    const uint16_t ksize = Load16(n + 6);
    if (8u + ksize > page_ - static_cast<size_t>(n - p)) return false;
    const int c =
        std::memcmp(n + 8, key.data(), std::min<size_t>(ksize, key.size()));
    return c < 0 || (c == 0 && ksize <= key.size());
  };
  for (size_t i = 0; i < nodes; ++i) {
    if (node(i) == nullptr) return kInvalidPage;
  }
  // The last node whose key is <= key, node 0 standing for the lowest.
  size_t lo = 1;
  size_t hi = nodes;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (less_equal(mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const char* n = node(lo - 1);
  return uint64_t{Load16(n)} | (uint64_t{Load16(n + 2)} << 16) |
         (uint64_t{Load16(n + 4)} << 32);
}

uint64_t LmdbAdvisor::Advise(const LmdbTree& tree,
                             std::span<const std::string_view> keys) const {
  if (tree.root == kInvalidPage || tree.depth < 1) return 0;
  uint64_t advised = 0;
  uint64_t last = kInvalidPage;
  for (const std::string_view key : keys) {
    uint64_t pgno = tree.root;
    for (int level = 1; level < tree.depth && pgno != kInvalidPage; ++level) {
      pgno = Child(pgno, key);
    }
    if (pgno == kInvalidPage || pgno >= file_pages_ || pgno == last) continue;
    last = pgno;
    // Not fatal: without the advice, mdb_get reads the page itself.
    (void)::madvise(const_cast<char*>(map_) + pgno * page_, page_,
                    MADV_WILLNEED);
    ++advised;
  }
  return advised;
}

}  // namespace flatbench::baselines
