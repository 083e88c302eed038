#pragma once
// The block reads of one batch (Reader::MultiGet), all in flight at once:
// each read goes to the kernel with io_uring as soon as the batch has placed
// it, so the device works while the rest are placed, and completions come
// back one by one, so a block is decoded while later reads are still in
// flight. Where io_uring is missing at build time or refused at run time
// (an old kernel, a seccomp filter), each read is a pread when submitted.
// liburing is Debian's (liburing-dev); the Meson option `io_uring` builds it
// in where the library exists.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/backend.h"

namespace flatbench::arena {

// One read of a batch: `len` bytes of `fd` at `offset` into `dst`.
struct BlockRead {
  int fd = -1;
  char* dst = nullptr;
  uint32_t len = 0;
  uint64_t offset = 0;
  // Set before Next returns the read: the bytes read (short only at the
  // end of the file, or when the file system refuses an O_DIRECT read), or
  // -errno.
  int64_t result = 0;
};

class BatchIo {
 public:
  // With `use_uring` false, or when the ring cannot be set up, every read
  // is a pread (uring() says which).
  explicit BatchIo(bool use_uring);
  ~BatchIo();
  BatchIo(const BatchIo&) = delete;
  BatchIo& operator=(const BatchIo&) = delete;

  // A batch: Begin with the reads' storage (which must not move until
  // Next has returned every read submitted), Submit each read once it is
  // filled in, then Next until it returns false. With io_uring a read is
  // in flight when Submit returns; without, it is done. No allocation once
  // the batch sizes have been seen.
  void Begin(std::span<BlockRead> reads);
  void Submit(size_t i);
  // Sets `*i` to a read whose result is set, waiting for one if none is;
  // false once every submitted read has been returned.
  bool Next(size_t* i);

  bool uring() const { return ring_ != nullptr; }
  // Why there is no ring ("" when there is one).
  const char* why_not() const { return why_not_; }
  // Submissions, reads and depth so far (BatchIoStats's fields).
  void AddTo(BatchIoStats* stats) const;
  void CountSyncRead() { ++stats_.sync_reads; }

 private:
  struct Ring;
  bool OpenRing();
  void Flush();          // Submits the queued reads.
  void Drain();          // Reaps what has completed (waits for at least one).
  void FailOver();       // Drops a broken ring; preads what it had.
  void Pread(size_t i);  // Reads i now and queues it for Next.

  std::unique_ptr<Ring> ring_;
  pid_t owner_ = 0;  // the thread the ring was made on (single issuer)
  const char* why_not_ = "";
  std::span<BlockRead> reads_;
  std::vector<uint32_t> submitted_;  // this batch's reads in submit order
  std::vector<uint32_t> done_;       // results set, not yet returned
  size_t returned_ = 0;              // reads Next has returned
  size_t in_flight_ = 0;
  size_t queued_ = 0;  // prepared, not yet submitted
  BatchIoStats stats_;
};

}  // namespace flatbench::arena
