#pragma once
// The cached read path (ReadPath::kCache): a block is read with pread(2)
// once into a frame of a bounded cache of verified blocks (block_cache.h),
// and later reads of it are memory reads. A block is checked when it is
// loaded (with verify_checksums) and never again: a hit is trusted, and a
// block that fails its check is never cached. A block that is not in the
// page cache is loaded with O_DIRECT straight into its frame, where the
// file allows (ReaderOptions::direct_cache_loads); one the page cache
// holds is copied from it. A reader that finds its block being loaded by
// another thread, or every frame pinned, reads it into its own ReadBuffer
// without caching it. A value points into a frame that the ReadBuffer (or
// the batch) keeps pinned (reader.h, "Lifetime").

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "arena/block_source.h"
#include "arena/page_cache_probe.h"
#include "common/files.h"

namespace flatbench::arena {

class CacheSource final : public BlockSource {
 public:
  // Duplicates how.fd for buffered loads (kIOError "dup NAME" when it
  // cannot) and, when asked and opened from a path, opens the file again
  // with O_DIRECT for loads; a refusal is no error: loads are then
  // buffered, and cache_loads() says why.
  static Result<std::unique_ptr<BlockSource>> Open(const SourceOpen& how);

  // Makes the cache (kUsage for a file of more than 2^32 - 2 blocks), and
  // keeps O_DIRECT loads only where every block starts on a page.
  Status Attach(const FileView& file) override;
  bool NeedsBuffer() const override { return true; }
  const char* ChecksumRule() const override {
    return "each block when it enters the cache";
  }
  Status Fetch(const BlockAddress& at, bool verify, ReadBuffer* buffer,
               BlockCache::Pin* pin, BlockContents* out) const override;
  const char* Hint(uint32_t id, uint64_t /*offset*/) const override {
    return cache_->FrameHint(id);
  }
  bool Place(const BlockAddress& at, BatchSlot* slot) const override;
  Status Complete(const BlockAddress& at, Status read, bool verify,
                  BatchSlot* slot, ReadBuffer* buffer,
                  BlockContents* out) const override;
  const BlockCache* cache() const override { return cache_.get(); }
  const std::string& cache_loads() const override { return loads_; }

 private:
  CacheSource(int fd, int direct_fd, std::string loads, uint64_t cache_bytes);
  int direct_fd() const { return direct_fd_ ? direct_fd_->get() : -1; }
  // Reads block `at` into `dst` (a frame or the ReadBuffer's I/O area, both
  // page-aligned): O_DIRECT when its page is not in the page cache, else
  // buffered pread.
  Status Load(char* dst, const BlockAddress& at, ReadBuffer* buffer) const;

  UniqueFd fd_;  // buffered loads, and the page cache questions
  std::optional<UniqueFd> direct_fd_;  // O_DIRECT loads, when kept
  std::string loads_;                  // cache_loads()
  uint64_t cache_bytes_;
  std::unique_ptr<BlockCache> cache_;
  BlockFormat format_;
  PageCacheProbe pages_;
};

}  // namespace flatbench::arena
