#pragma once
// How a Reader's Get reads a data block (a measured choice; FORMAT.md does
// not depend on it), and the one registry of read paths: each path's name
// and the block source that reads for it (block_source.h). A new read path
// is a new ReadPath, its source, its entry in the registry (read_path.cc)
// and its tests; the Reader asks the registry, never names a path.

#include <memory>
#include <span>

#include "common/status.h"

namespace flatbench::arena {

class BlockSource;
struct SourceOpen;

// The index and filter are the same in every mode; Verify and the Iterator
// always read through the map.
enum class ReadPath {
  kMmap,    // Through the read-only map: page faults, zero-copy values.
  kPread,   // pread(2) of the block into the ReadBuffer (page cache).
  kDirect,  // pread(2) with O_DIRECT, 4 KiB-aligned, into the ReadBuffer.
  kCache,   // pread(2) once into a bounded cache of verified blocks
            // (block_cache.h), with O_DIRECT when the page cache lacks the
            // block; later reads are memory reads.
};

// One read path of the registry.
struct ReadPathEntry {
  ReadPath path;
  const char* name;  // "mmap", "pread", "direct", "cache"
  // Makes the path's source (block_source.h, "Opening"); errors as
  // Reader::Open documents them.
  Result<std::unique_ptr<BlockSource>> (*open)(const SourceOpen& how);
};

// Every read path, in ReadPath order.
std::span<const ReadPathEntry> ReadPaths();
// The entry of `path`. REQUIRES: `path` is one of ReadPath's enumerators.
const ReadPathEntry& ReadPathOf(ReadPath path);
// "mmap", "pread", "direct", "cache" ("mmap" for a value outside the enum).
const char* ReadPathName(ReadPath path);

}  // namespace flatbench::arena
