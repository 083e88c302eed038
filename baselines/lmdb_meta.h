#pragma once
// LMDB's meta pages, read with pread before the file is mapped, so that a
// short data.mdb is an error rather than a SIGBUS on the first touch of a
// page past its end.

#include <cstdint>
#include <string>

#include "common/status.h"

namespace flatbench::baselines {

// An LMDB return code as our status, `what` in front: kCorruption for a
// damaged or foreign file, kMissingInput for ENOENT and MDB_NOTFOUND, else
// kIOError.
Status FromMdb(int rc, const std::string& what);

// What the newer of the two meta pages of a data.mdb claims.
struct LmdbMeta {
  uint64_t file_bytes = 0;  // The file's size now.
  uint32_t page_size = 0;
  uint64_t last_page = 0;  // Highest page number in use.
  uint64_t txn_id = 0;
  int meta_page = 0;  // 0 or 1: which meta page is newer.
  // (last_page + 1) * page_size: the least size that holds every page.
  uint64_t needed_bytes = 0;
};

// Reads and checks both meta pages of `path` (an LMDB data file) and its
// size. kCorruption naming the file with its size and the size expected
// when it is too short for its meta pages or for the pages they claim, or
// when a meta page is not LMDB's (magic, version, page size) or holds a
// transaction id of the wrong parity (LMDB writes transaction T's meta to
// page T % 2, so a damaged id could make this check and LMDB read through
// different meta pages); kMissingInput
// when it does not exist; kIOError when it cannot be read.
Result<LmdbMeta> CheckLmdbDataFile(const std::string& path);

}  // namespace flatbench::baselines
