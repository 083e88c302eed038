#pragma once
// The two read paths that read a block into the caller's memory with
// pread(2), kept as measured alternatives to the map (is a cold read's cost
// the format's, or the page fault path's?): PreadSource (ReadPath::kPread)
// reads exactly the block's bytes through the page cache; DirectSource
// (ReadPath::kDirect) reads the whole 4 KiB pages that hold them with
// O_DIRECT, past the page cache. Either reads into the ReadBuffer's I/O
// area (Get) or the batch's buffer, one system call a block, and checks
// the block's checksum on every read when verify_checksums is set.

#include <cstdint>
#include <memory>

#include "arena/block_source.h"
#include "common/files.h"

namespace flatbench::arena {

class PreadSource final : public BlockSource {
 public:
  // Duplicates how.fd. Errors: kIOError "dup NAME".
  static Result<std::unique_ptr<BlockSource>> Open(const SourceOpen& how);

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
  explicit PreadSource(int fd) : fd_(fd) {}

  UniqueFd fd_;
  BlockFormat format_;
};

class DirectSource final : public BlockSource {
 public:
  // Opens how.path again with O_DIRECT. Errors: kUsage "NAME: the direct
  // read path needs Reader::Open" without a path; kIOError "open PATH with
  // O_DIRECT" when the file system refuses it.
  static Result<std::unique_ptr<BlockSource>> Open(const SourceOpen& how);

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
  explicit DirectSource(int fd) : fd_(fd) {}

  UniqueFd fd_;  // opened with O_DIRECT
  BlockFormat format_;
};

}  // namespace flatbench::arena
