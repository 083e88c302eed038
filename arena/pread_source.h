#pragma once
// The two read paths that read a block into the caller's memory with
// pread(2), kept as measured alternatives to the map (is a cold read's cost
// the format's, or the page fault path's?): one PreadSource reads exactly
// the block's bytes through the page cache (ReadPath::kPread), or the whole
// 4 KiB pages that hold them with O_DIRECT, past the page cache
// (ReadPath::kDirect). Either reads into the ReadBuffer's I/O
// area (Get) or the batch's buffer, one system call a block, and checks
// the block's checksum on every read when verify_checksums is set.

#include <cstdint>
#include <memory>

#include "arena/block_source.h"
#include "common/files.h"

namespace flatbench::arena {

class PreadSource final : public BlockSource {
 public:
  // ReadPath::kPread: duplicates how.fd. Errors: kIOError "dup NAME".
  static Result<std::unique_ptr<BlockSource>> Open(const SourceOpen& how);
  // ReadPath::kDirect: opens how.path again with O_DIRECT. Errors: kUsage
  // "NAME: the direct read path needs Reader::Open" without a path;
  // kIOError "open PATH with O_DIRECT" when the file system refuses it.
  static Result<std::unique_ptr<BlockSource>> OpenDirect(const SourceOpen& how);

  Status Attach(const FileView& file) override;
  bool NeedsBuffer() const override { return true; }
  const char* ChecksumRule() const override { return "every read"; }
  Status Fetch(const BlockAddress& at, bool verify, ReadBuffer* buffer,
               BlockCache::Pin* pin, BlockContents* out) const override;
  const char* Hint(uint32_t /*id*/, uint64_t /*offset*/) const override {
    return nullptr;  // not in memory until read
  }
  bool Place(const BlockAddress& at, BatchSlot* slot) const override;
  Status Complete(const BlockAddress& at, Status read, bool verify,
                  BatchSlot* slot, ReadBuffer* buffer,
                  BlockContents* out) const override;

 private:
  // The bytes a read of block `at` asks for: exactly the block's, or with
  // O_DIRECT the whole pages that hold them.
  struct Span {
    uint64_t start;
    uint64_t len;
  };
  PreadSource(int fd, bool whole_pages) : fd_(fd), whole_pages_(whole_pages) {}
  Span SpanOf(const BlockAddress& at) const;

  UniqueFd fd_;  // opened with O_DIRECT when whole_pages_
  const bool whole_pages_;
  BlockFormat format_;
};

}  // namespace flatbench::arena
