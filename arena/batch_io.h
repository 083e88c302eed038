#pragma once
// The block reads of one batch (Reader::MultiGet), all in flight at once:
// one io_uring submission of every read, or, where io_uring is missing at
// build time or refused at run time (an old kernel, a seccomp filter), a
// pread loop. liburing is Debian's (liburing-dev); the Meson option
// `io_uring` builds it in where the library exists.

#include <cstdint>
#include <memory>
#include <span>

#include "common/backend.h"

namespace flatbench::arena {

// One read of a batch: `len` bytes of `fd` at `offset` into `dst`.
struct BlockRead {
  int fd = -1;
  char* dst = nullptr;
  uint32_t len = 0;
  uint64_t offset = 0;
  // Set by Run: the bytes read (short only at the end of the file, or when
  // the file system refuses an O_DIRECT read), or -errno.
  int64_t result = 0;
};

class BatchIo {
 public:
  // With `use_uring` false, or when the ring cannot be set up, every batch
  // is a pread loop (uring() says which).
  explicit BatchIo(bool use_uring);
  ~BatchIo();
  BatchIo(const BatchIo&) = delete;
  BatchIo& operator=(const BatchIo&) = delete;

  // Runs every read of `reads` and sets each one's result. With io_uring,
  // the reads go to the kernel in one submission (in chunks of the ring's
  // size when there are more) and this waits for all their completions.
  // No allocation.
  void Run(std::span<BlockRead> reads);

  bool uring() const { return ring_ != nullptr; }
  // Why there is no ring ("" when there is one).
  const char* why_not() const { return why_not_; }
  // Submissions, reads and depth so far (BatchIoStats's fields).
  void AddTo(BatchIoStats* stats) const;
  void CountSyncRead() { ++stats_.sync_reads; }

 private:
  struct Ring;
  std::unique_ptr<Ring> ring_;
  const char* why_not_ = "";
  BatchIoStats stats_;
};

}  // namespace flatbench::arena
