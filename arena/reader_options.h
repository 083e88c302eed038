#pragma once
// How Reader::Open opens an arena file: where its metadata lives, which
// checksums are checked when, and the read path (read_path.h) with that
// path's own settings.

#include <cstdint>

#include "arena/read_path.h"

namespace flatbench::arena {

struct ReaderOptions {
  // Leave index and filter in the map instead of copying them at open. Their
  // checksums are then not checked at open (that would read them); Verify
  // checks them. A corrupt lazy index can misdirect a lookup (a wrong
  // "absent") but never an out-of-bounds read.
  bool lazy = false;
  // Check each block's checksum before its keys are trusted: once per block
  // per open on the mmap and cache paths, on every read on the others.
  bool verify_checksums = false;
  // With verify_checksums on the mmap path: check on every read, not once.
  bool verify_every_read = false;
  ReadPath read_path = ReadPath::kMmap;
  // Frames of the cache read path (at most one per block of the file).
  // RocksDB's block cache is 1 GiB in this project's configuration.
  uint64_t cache_bytes = uint64_t{1} << 30;
  // Cache read path: load a block that is not in the page cache with
  // O_DIRECT straight into its frame, skipping the page cache's insertion
  // and copy (RESEARCH.md section 8, "CPU per cold hit of the cached
  // path"). Loads fall back to buffered pread where the file is opened with
  // OpenFd, is zstd-compressed (blocks are not page-aligned), its file
  // system refuses O_DIRECT, or this is false.
  bool direct_cache_loads = true;
};

}  // namespace flatbench::arena
