#pragma once
// The mmap read path (ReadPath::kMmap), the default: a block is read
// through the Reader's read-only map, by page faults, and its values are
// views into the map (zero-copy: a warm hit costs no system call and no
// copy). With verify_checksums a block is checked the first time this
// source reads it, and a bitmap (one bit per block of the file) remembers
// that, unless verify_every_read asks for a check on every read. A batch
// decodes a block the page cache holds from the map, and reads one it lacks
// with the batch's own read, from a duplicate of the file's descriptor.

#include <atomic>
#include <cstdint>
#include <memory>

#include "arena/block_source.h"
#include "arena/page_cache_probe.h"
#include "common/files.h"

namespace flatbench::arena {

class MmapSource final : public BlockSource {
 public:
  // Duplicates how.fd for batches; without the duplicate (the dup failed) a
  // batch reads every block through the map. Never fails.
  static Result<std::unique_ptr<BlockSource>> Open(const SourceOpen& how);

  Status Attach(const FileView& file) override;
  bool NeedsBuffer() const override { return false; }
  const char* ChecksumRule() const override {
    return check_once_ ? "each block once per open (a bitmap)" : "every read";
  }
  Status Fetch(const BlockAddress& at, bool verify, ReadBuffer* buffer,
               BlockCache::Pin* pin, BlockContents* out) const override;
  const char* Hint(uint32_t /*id*/, uint64_t offset) const override {
    return map_ + offset;
  }
  bool Place(const BlockAddress& at, BatchSlot* slot) const override;
  Status Complete(const BlockAddress& at, Status read, bool verify,
                  BatchSlot* slot, ReadBuffer* buffer,
                  BlockContents* out) const override;

 private:
  MmapSource(int fd, bool check_once) : fd_(fd), check_once_(check_once) {}
  // Decodes the block at `p`, checked once per block (and recorded) when
  // there is a bitmap, else as `verify` says.
  Status DecodeOnce(const BlockAddress& at, const char* p, bool verify,
                    ReadBuffer* buffer, BlockContents* out) const;
  bool Verified(uint32_t id) const {
    return (verified_[id >> 6].load(std::memory_order_relaxed) >> (id & 63)) &
           1;
  }
  void MarkVerified(uint32_t id) const {
    verified_[id >> 6].fetch_or(uint64_t{1} << (id & 63),
                                std::memory_order_relaxed);
  }

  UniqueFd fd_;      // for a batch's reads; -1 when the dup failed
  bool check_once_;  // verify_checksums and not verify_every_read
  const char* map_ = nullptr;
  BlockFormat format_;
  // One bit per block: checked since open (with check_once_ on a file of at
  // most 2^32 - 2 blocks; else null).
  std::unique_ptr<std::atomic<uint64_t>[]> verified_;
  PageCacheProbe pages_;
};

}  // namespace flatbench::arena
