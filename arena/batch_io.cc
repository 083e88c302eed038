#include "arena/batch_io.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#if FLATBENCH_HAVE_IO_URING
#include <liburing.h>
#endif

namespace flatbench::arena {

// Entries of a session's ring: a batch of more blocks is submitted in
// chunks of this many (each chunk's reads are all in flight together).
constexpr unsigned kRingEntries = 256;

#if FLATBENCH_HAVE_IO_URING
struct BatchIo::Ring {
  io_uring ring{};
  bool live = false;
  ~Ring() {
    if (live) io_uring_queue_exit(&ring);
  }
};
#else
struct BatchIo::Ring {};
#endif

BatchIo::BatchIo(bool use_uring) {
  if (!use_uring) {
    why_not_ = "io_uring not asked for";
    return;
  }
#if FLATBENCH_HAVE_IO_URING
  auto ring = std::make_unique<Ring>();
  if (io_uring_queue_init(kRingEntries, &ring->ring, 0) < 0) {
    why_not_ = "io_uring_queue_init refused (kernel or seccomp)";
    return;
  }
  ring->live = true;
  ring_ = std::move(ring);
#else
  why_not_ = "built without io_uring";
#endif
}

BatchIo::~BatchIo() = default;

namespace {

int64_t PreadAll(BlockRead& r) {
  uint64_t done = 0;
  while (done < r.len) {
    const ssize_t n = ::pread(r.fd, r.dst + done, r.len - done,
                              static_cast<off_t>(r.offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (n == 0) break;
    done += static_cast<uint64_t>(n);
  }
  return static_cast<int64_t>(done);
}

}  // namespace

void BatchIo::Run(std::span<BlockRead> reads) {
  if (reads.empty()) return;
#if FLATBENCH_HAVE_IO_URING
  if (ring_ != nullptr) {
    io_uring* ring = &ring_->ring;
    for (size_t start = 0; start < reads.size(); start += kRingEntries) {
      const size_t n = std::min<size_t>(kRingEntries, reads.size() - start);
      size_t queued = 0;
      for (; queued < n; ++queued) {
        io_uring_sqe* sqe = io_uring_get_sqe(ring);
        if (sqe == nullptr) break;
        BlockRead& r = reads[start + queued];
        io_uring_prep_read(sqe, r.fd, r.dst, r.len, r.offset);
        io_uring_sqe_set_data64(sqe, start + queued);
        r.result = -EINPROGRESS;
      }
      int submitted =
          io_uring_submit_and_wait(ring, static_cast<unsigned>(queued));
      while (submitted == -EINTR) {
        submitted =
            io_uring_submit_and_wait(ring, static_cast<unsigned>(queued));
      }
      if (submitted < 0) submitted = 0;
      // Reads queued but not taken would stay in the ring for the next
      // submission: the ring is dropped after this chunk instead.
      bool broken = static_cast<size_t>(submitted) < queued;
      ++stats_.submissions;
      stats_.reads += static_cast<uint64_t>(submitted);
      stats_.max_depth = std::max<uint64_t>(stats_.max_depth,
                                            static_cast<uint64_t>(submitted));
      // Reap every completion of what the kernel took.
      for (int reaped = 0; reaped < submitted;) {
        io_uring_cqe* cqe = nullptr;
        const int rc = io_uring_wait_cqe(ring, &cqe);
        if (rc == -EINTR) continue;
        if (rc < 0) {
          broken = true;
          break;
        }
        reads[io_uring_cqe_get_data64(cqe)].result = cqe->res;
        io_uring_cqe_seen(ring, cqe);
        ++reaped;
      }
      if (broken) {
        // A ring that lost completions is not trusted again: closing it
        // ends what it still had in flight before anything is read again
        // into those buffers; this batch's rest and later batches use pread.
        ring_.reset();
        why_not_ = "io_uring_wait_cqe failed; pread from then on";
      }
      // What the kernel did not take, or whose completion never came: a
      // pread, so every read gets an answer.
      const size_t end = broken ? reads.size() : start + n;
      for (size_t i = start; i < end; ++i) {
        BlockRead& r = reads[i];
        if (i >= start + n || r.result == -EINPROGRESS) {
          r.result = PreadAll(r);
          ++stats_.sync_reads;
        }
      }
      if (broken) return;
    }
    return;
  }
#endif
  for (BlockRead& r : reads) {
    r.result = PreadAll(r);
    ++stats_.sync_reads;
  }
}

void BatchIo::AddTo(BatchIoStats* stats) const {
  stats->submissions += stats_.submissions;
  stats->reads += stats_.reads;
  stats->max_depth = std::max(stats->max_depth, stats_.max_depth);
  stats->sync_reads += stats_.sync_reads;
  if (stats_.submissions > 0) stats->submits_reads = true;
}

}  // namespace flatbench::arena
