#pragma once
// Where the arena reader gets a data block's bytes: one BlockSource per read
// path (read_path.h holds the registry), as LevelDB's table reader reads
// through a RandomAccessFile and a Cache. The Reader finds a key's block
// with its filter and index and hands the block's address to its source;
// the source brings the bytes its way (the map, pread, O_DIRECT, the block
// cache) and decodes them with DecodeBlock under its own checksum rule.
// Get fetches one block at a time (Fetch). A batch (Reader::MultiGet)
// places each of its blocks (Place), submits together the reads that Place
// describes, and completes each block once its bytes are there (Complete).
//
// The contract every source keeps:
// - Opening. A source is made by its read path's entry (ReadPathEntry::open)
//   from the file's descriptor before the file is validated, so that a path
//   that cannot read the file refuses at once; then it is attached to the
//   validated, mapped file (Attach), once, before its first read.
// - Thread-safety. Once attached, the const methods run concurrently from
//   any number of threads without locks. What a read needs per thread is
//   the caller's: a ReadBuffer (Get) or a BatchSlot (a batch).
// - Lifetimes. A source borrows the Reader's map (FileView::map), which
//   outlives it, and owns its descriptors and (cache path) its BlockCache.
//   A decoded block views bytes that stay valid as reader.h ("Lifetime")
//   says of values: in the map until the Reader goes; in the ReadBuffer or
//   the batch's buffer until its next use; in a cached frame while the pin
//   given holds it.
// - Checksums. Each source says when it checks a block (reader.h,
//   "Checksums"). A block that fails its check is never remembered as
//   checked, nor cached, so every read of it reports the corruption again.
// - Errors. Status values without the file's name (the Reader adds it):
//   kIOError "read at offset N" (with the system's reason) or "short read at
//   offset N" for a read that fails or comes up short; DecodeBlock's
//   kCorruption for bad bytes. Opening errors are Reader::Open's. Success
//   allocates nothing.

#include <cstdint>
#include <string>

#include "arena/batch_io.h"
#include "arena/block.h"
#include "arena/block_cache.h"
#include "arena/read_buffer.h"
#include "arena/reader_options.h"
#include "common/status.h"

namespace flatbench::arena {

class PageTrend;

// The shape of the file's blocks (its header's), which every decode needs.
struct BlockFormat {
  uint32_t key_width = 0;
  bool compressed = false;
};

// One data block of the file.
struct BlockAddress {
  uint32_t id = 0;      // its number in the file (the bitmap's, the cache's)
  uint64_t offset = 0;  // file offset of its first byte
  uint64_t avail = 0;   // its bytes in the file (at most kBlockSize)
};

// What a read path's source is made from (Reader::Open, Reader::OpenFd),
// before the file is validated.
struct SourceOpen {
  const std::string* path;  // null when opened from a descriptor
  int fd;                   // the file, open for reading; not taken over
  const std::string& name;  // the file, for messages
  const ReaderOptions& options;
};

// The validated, mapped file a source reads (BlockSource::Attach).
struct FileView {
  const char* map = nullptr;  // the whole file, read-only
  BlockFormat format;
  uint64_t blocks = 0;       // data blocks in the file
  bool data_aligned = true;  // every shard's data region starts on a page
};

// One block of a batch, as its source places it (Place) and completes it
// (Complete). The batch fills the first five fields, which stay its own
// until its next batch; Place sets the others.
struct BatchSlot {
  char* buffer = nullptr;            // ReadBuffer::kIoSize bytes, aligned
  BlockRead* read = nullptr;         // the read Place describes, if any
  BlockCache::Pin* pin = nullptr;    // a cached frame held for the batch
  BlockCache::Load* load = nullptr;  // a frame claimed for loading
  PageTrend* pages = nullptr;        // the batch's page cache answers
  const char* src = nullptr;         // the block's bytes: there, or once read
  // A read that fails or comes up short is done again with a buffered
  // pread of this descriptor (an O_DIRECT read a file system may refuse).
  int retry_fd = -1;
  bool checked = false;  // src was checked before (a cached frame)
};

class BlockSource {
 public:
  virtual ~BlockSource() = default;

  // Called once, after Reader::Open has validated and mapped the file, and
  // before any read. Errors: kUsage for a file this path cannot number
  // (the cache path's 2^32 - 2 blocks), kIOError for memory it cannot map.
  virtual Status Attach(const FileView& file) = 0;

  // Whether Fetch needs a ReadBuffer even for an uncompressed file.
  virtual bool NeedsBuffer() const = 0;
  // When this source checks a block with verify_checksums, in a few words:
  // "each block once per open (a bitmap)", "every read", ...
  virtual const char* ChecksumRule() const = 0;

  // Reads block `at` and decodes it into *out, checking its checksum when
  // `verify`, as this path checks. `buffer` is the caller's (REQUIRES: not
  // null when NeedsBuffer() or the file is compressed). On the cache path
  // `pin` (REQUIRES: not null there) holds the frame *out views until it is
  // released or used again.
  virtual Status Fetch(const BlockAddress& at, bool verify, ReadBuffer* buffer,
                       BlockCache::Pin* pin, BlockContents* out) const = 0;

  // Where block `id`, at file offset `offset`, sits in memory now, or null
  // when it must be read first. A prefetch hint only: a cached frame may be
  // refilled at any moment, so never read through it.
  virtual const char* Hint(uint32_t id, uint64_t offset) const = 0;

  // A batch's block: finds it in memory (sets slot->src), or describes in
  // *slot->read the read that brings it to slot->src and returns true (the
  // batch submits it). No system call but a page cache question.
  virtual bool Place(const BlockAddress& at, BatchSlot* slot) const = 0;

  // Completes a block that Place placed, once its read (if it needed one)
  // is done with outcome `read` (ok when it needed none): decodes slot->src
  // as Fetch would, with the same check, and settles what Place claimed (a
  // cache frame is published, or let go after a failed read or check).
  // Returns `read` when it failed. Called exactly once per Place.
  virtual Status Complete(const BlockAddress& at, Status read, bool verify,
                          BatchSlot* slot, ReadBuffer* buffer,
                          BlockContents* out) const = 0;

  // The cache path's block cache; null on the other paths.
  virtual const BlockCache* cache() const { return nullptr; }
  // How the cache path loads blocks absent from the page cache: "O_DIRECT",
  // or why they are read with buffered pread; empty on the other paths.
  virtual const std::string& cache_loads() const;
};

// DecodeBlock of block `at` from its bytes at `p`, with `buffer`'s scratch
// and zstd context (none when `buffer` is null).
Status DecodeAt(const BlockFormat& format, const char* p,
                const BlockAddress& at, bool verify, ReadBuffer* buffer,
                BlockContents* out);

// pread of `len` bytes at `offset` into `dst` (EINTR retried); *done is the
// count read, short only at the end of the file. Errors: kIOError "read at
// offset N".
Status ReadAt(int fd, char* dst, uint64_t len, uint64_t offset, uint64_t* done);

// Reads bytes [start, start + len) of `fd` into `dst`, which hold block
// `at` (REQUIRES: start <= at.offset). Errors: ReadAt's, and kIOError "short
// read at offset N" when the block's bytes did not all arrive.
Status ReadBlockBytes(int fd, char* dst, uint64_t start, uint64_t len,
                      const BlockAddress& at);

}  // namespace flatbench::arena
