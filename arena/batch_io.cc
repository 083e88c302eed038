#include "arena/batch_io.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#if FLATBENCH_HAVE_IO_URING
#include <liburing.h>
#endif

namespace flatbench::arena {

// Entries of a session's ring: a batch keeps at most this many reads in
// flight (the next waits for a completion).
constexpr unsigned kRingEntries = 256;
// Reads prepared before they are submitted together (after the first):
// fewer system calls than one a read, while the first reads start at once
// rather than waiting for the whole batch (RESEARCH.md section 12).
constexpr size_t kSubmitEvery = 4;

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
  OpenRing();
#else
  why_not_ = "built without io_uring";
#endif
}

BatchIo::~BatchIo() = default;

bool BatchIo::OpenRing() {
#if FLATBENCH_HAVE_IO_URING
  auto ring = std::make_unique<Ring>();
  // One thread submits (a session belongs to one thread at a time), and
  // completion work runs only when that thread asks for completions: the
  // kernel then wakes it once for all the completions it waits for, not
  // once a read (6.1 and later; older kernels get a plain ring).
  unsigned flags = 0;
#ifdef IORING_SETUP_DEFER_TASKRUN
  flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
#endif
  if (io_uring_queue_init(kRingEntries, &ring->ring, flags) < 0 &&
      (flags == 0 || io_uring_queue_init(kRingEntries, &ring->ring, 0) < 0)) {
    why_not_ = "io_uring_queue_init refused (kernel or seccomp)";
    return false;
  }
  ring->live = true;
  ring_ = std::move(ring);
  owner_ = ::gettid();
  why_not_ = "";
  return true;
#else
  return false;
#endif
}

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

void BatchIo::Begin(std::span<BlockRead> reads) {
#if FLATBENCH_HAVE_IO_URING
  // Reads that a batch abandoned midway (an exception) left in flight land
  // before their buffers are used again, and their completions are not
  // taken for this batch's.
  if (ring_ != nullptr && in_flight_ + queued_ > 0) {
    int rc = io_uring_submit(&ring_->ring);
    while (rc == -EINTR) rc = io_uring_submit(&ring_->ring);
    if (rc >= 0) in_flight_ += queued_;
    queued_ = 0;
    while (rc >= 0 && in_flight_ > 0) {
      io_uring_cqe* cqe = nullptr;
      rc = io_uring_wait_cqe(&ring_->ring, &cqe);
      if (rc == -EINTR) {
        rc = 0;
        continue;
      }
      if (rc == 0) {
        io_uring_cqe_seen(&ring_->ring, cqe);
        --in_flight_;
      }
    }
    if (rc < 0) {
      ring_.reset();
      why_not_ = "io_uring failed during a batch; pread from then on";
    }
  }
#endif
  reads_ = reads;
  submitted_.clear();
  done_.clear();
  returned_ = 0;
  in_flight_ = 0;
  queued_ = 0;
  // A single-issuer ring takes submissions only from the thread that made
  // it: a session handed to another thread gets a ring of its own.
  if (ring_ != nullptr && owner_ != ::gettid()) {
    ring_.reset();
    OpenRing();
  }
}

void BatchIo::Pread(size_t i) {
  reads_[i].result = PreadAll(reads_[i]);
  ++stats_.sync_reads;
  done_.push_back(static_cast<uint32_t>(i));
}

void BatchIo::Submit(size_t i) {
#if FLATBENCH_HAVE_IO_URING
  if (ring_ != nullptr && in_flight_ + queued_ >= kRingEntries) Drain();
  if (ring_ != nullptr) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_->ring);
    if (sqe == nullptr) {
      // Cannot happen (the queue is flushed before it fills); if it did,
      // this read and the batch's others would still be answered.
      FailOver();
      Pread(i);
      return;
    }
    BlockRead& r = reads_[i];
    io_uring_prep_read(sqe, r.fd, r.dst, r.len, r.offset);
    io_uring_sqe_set_data64(sqe, i);
    r.result = -EINPROGRESS;
    if (submitted_.empty()) ++stats_.submissions;
    submitted_.push_back(static_cast<uint32_t>(i));
    ++queued_;
    // The batch's first read goes alone, so the device starts on it while
    // the next are placed; then every kSubmitEvery reads, so that each
    // submission's notification of the device (a VM exit on a virtual
    // disk) serves several.
    if (submitted_.size() == 1 || queued_ >= kSubmitEvery) Flush();
    return;
  }
#endif
  Pread(i);
}

void BatchIo::Flush() {
#if FLATBENCH_HAVE_IO_URING
  if (queued_ == 0) return;
  int rc = io_uring_submit(&ring_->ring);
  while (rc == -EINTR) rc = io_uring_submit(&ring_->ring);
  if (rc < 0 || static_cast<size_t>(rc) != queued_) {
    FailOver();  // the kernel did not take them all: not trusted again
    return;
  }
  in_flight_ += queued_;
  stats_.reads += queued_;
  queued_ = 0;
  stats_.max_depth = std::max<uint64_t>(stats_.max_depth, in_flight_);
#endif
}

void BatchIo::Drain() {
#if FLATBENCH_HAVE_IO_URING
  Flush();
  if (ring_ == nullptr) return;
  io_uring* ring = &ring_->ring;
  io_uring_cqe* cqe = nullptr;
  // Wait for about half of what is in flight: the blocks that have
  // arrived are decoded while the rest are still read, with a few wake-ups
  // a batch rather than one a read.
  const unsigned want =
      static_cast<unsigned>(std::max<size_t>(1, (in_flight_ + 1) / 2));
  int rc = io_uring_wait_cqe_nr(ring, &cqe, want);
  while (rc == -EINTR) rc = io_uring_wait_cqe_nr(ring, &cqe, want);
  if (rc < 0) {
    FailOver();
    return;
  }
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_for_each_cqe(ring, head, cqe) {
    const uint64_t i = io_uring_cqe_get_data64(cqe);
    reads_[i].result = cqe->res;
    done_.push_back(static_cast<uint32_t>(i));
    --in_flight_;
    ++seen;
  }
  io_uring_cq_advance(ring, seen);
#endif
}

void BatchIo::FailOver() {
  // A ring that refused a read or lost completions is closed, which ends
  // what it still had in flight before anything is read again into those
  // buffers; this batch's rest and later batches use pread.
  ring_.reset();
  why_not_ = "io_uring failed during a batch; pread from then on";
  in_flight_ = 0;
  queued_ = 0;
  for (const uint32_t i : submitted_) {
    if (reads_[i].result == -EINPROGRESS) Pread(i);
  }
}

bool BatchIo::Next(size_t* i) {
  while (returned_ == done_.size()) {
    if (in_flight_ + queued_ == 0) return false;
    Drain();
  }
  *i = done_[returned_++];
  return true;
}

void BatchIo::AddTo(BatchIoStats* stats) const {
  stats->submissions += stats_.submissions;
  stats->reads += stats_.reads;
  stats->max_depth = std::max(stats->max_depth, stats_.max_depth);
  stats->sync_reads += stats_.sync_reads;
  if (stats_.submissions > 0) stats->submits_reads = true;
}

}  // namespace flatbench::arena
