#pragma once
// How a Reader's Get reads a data block (a measured choice; FORMAT.md does
// not depend on it).

namespace flatbench::arena {

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

// "mmap", "pread", "direct", "cache".
const char* ReadPathName(ReadPath path);

}  // namespace flatbench::arena
