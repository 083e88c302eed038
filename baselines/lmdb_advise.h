#pragma once
// LMDB's batch (it has no batch API): before a loop of mdb_get, advise the
// kernel of every leaf page the batch will read (madvise MADV_WILLNEED),
// so their reads are in flight together rather than one fault at a time.
//
// LMDB names no page of its own, so the leaf of each key is found by
// walking its tree from the root through the branch pages, in LMDB's map,
// as mdb_get would. The branch pages are in memory in cold mode (the
// preload reads them, lmdb_pages.h); leaf pages are not touched, only
// advised. Every page number and node offset is checked against the file
// and the page before it is followed; a page that looks wrong ends that
// key's walk, and mdb_get then meets it as it would without the advice.

#include <lmdb.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "common/status.h"

namespace flatbench::baselines {

// A named database's tree as one transaction sees it.
struct LmdbTree {
  uint64_t root = ~0ULL;  // P_INVALID: empty
  int depth = 0;
};

// The record of named database `name` in `txn`'s main database.
// kCorruption when it is missing or malformed.
Result<LmdbTree> LmdbTreeOf(MDB_txn* txn, const char* name);

// Where LMDB's map of data.mdb starts in this process. mdb_env_info's
// me_mapaddr is the address recorded in the meta page (MDB_FIXEDMAP's), not
// the map's, so it is found from a page: the record of named database
// `name` lies in a leaf page of the main database, whose header holds its
// own page number. kCorruption when that page does not name itself
// plausibly (inside a file of `file_pages` pages of `page` bytes).
Result<const char*> LmdbMapBase(MDB_txn* txn, const char* name, size_t page,
                                uint64_t file_pages);

class LmdbAdvisor {
 public:
  // `map`: LMDB's map (mdb_env_info's me_mapaddr); `file_pages`: pages of
  // data.mdb (the map may be larger than the file); `page`: its page size.
  LmdbAdvisor(const char* map, uint64_t file_pages, size_t page)
      : map_(map), file_pages_(file_pages), page_(page) {}

  // Advises the leaf page of each of `keys` in `tree`; returns how many
  // madvise calls were made (one per key whose walk reached a leaf, a
  // page shared by several keys advised once per run of them).
  uint64_t Advise(const LmdbTree& tree,
                  std::span<const std::string_view> keys) const;

 private:
  // The child of branch page `pgno` that covers `key`, or ~0 when the page
  // is out of bounds or malformed.
  uint64_t Child(uint64_t pgno, std::string_view key) const;

  const char* map_;
  uint64_t file_pages_;
  size_t page_;
};

}  // namespace flatbench::baselines
