// Each read is one system call into memory the caller owns: no allocation.
// O_DIRECT needs offset, length and address aligned to the device's logical
// block; 4 KiB (kBlockSize) covers every common device, and a block is at
// most one page, so its pages are at most two (ReadBuffer::kIoSize).

#include "arena/pread_source.h"

#include <fcntl.h>

#include <utility>

namespace flatbench::arena {
namespace {

// The whole pages that hold block `at`.
struct PageSpan {
  uint64_t start;
  uint64_t len;
};

PageSpan PagesOf(const BlockAddress& at) {
  const uint64_t start = at.offset & ~uint64_t{kBlockSize - 1};
  const uint64_t end =
      (at.offset + at.avail + kBlockSize - 1) / kBlockSize * kBlockSize;
  return {start, end - start};
}

Status CompletePlain(const BlockFormat& format, const BlockAddress& at,
                     Status read, bool verify, const BatchSlot& slot,
                     ReadBuffer* buffer, BlockContents* out) {
  if (!read.ok()) return read;
  return DecodeAt(format, slot.src, at, verify, buffer, out);
}

}  // namespace

Result<std::unique_ptr<BlockSource>> PreadSource::Open(const SourceOpen& how) {
  const int fd = ::fcntl(how.fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("dup " + how.name);
  return std::unique_ptr<BlockSource>(new PreadSource(fd));
}

Status PreadSource::Attach(const FileView& file) {
  format_ = file.format;
  return Status::Ok();
}

Status PreadSource::Fetch(const BlockAddress& at, bool verify,
                          ReadBuffer* buffer, BlockCache::Pin* /*pin*/,
                          BlockContents* out) const {
  FLATBENCH_RETURN_IF_ERROR(
      ReadBlockBytes(fd_.get(), buffer->io(), at.offset, at.avail, at));
  return DecodeAt(format_, buffer->io(), at, verify, buffer, out);
}

// A block in the page cache is copied from there by the read (no device
// read); it rides with the others.
bool PreadSource::Place(const BlockAddress& at, BatchSlot* slot) const {
  *slot->read = BlockRead{.fd = fd_.get(),
                          .dst = slot->buffer,
                          .len = static_cast<uint32_t>(at.avail),
                          .offset = at.offset};
  slot->src = slot->buffer;
  return true;
}

Status PreadSource::Complete(const BlockAddress& at, Status read, bool verify,
                             BatchSlot* slot, ReadBuffer* buffer,
                             BlockContents* out) const {
  return CompletePlain(format_, at, std::move(read), verify, *slot, buffer,
                       out);
}

Result<std::unique_ptr<BlockSource>> DirectSource::Open(const SourceOpen& how) {
  if (how.path == nullptr) {
    return Status::Usage(how.name +
                         ": the direct read path needs Reader::Open");
  }
  const int fd = ::open(how.path->c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  if (fd < 0) return Status::FromErrno("open " + *how.path + " with O_DIRECT");
  return std::unique_ptr<BlockSource>(new DirectSource(fd));
}

Status DirectSource::Attach(const FileView& file) {
  format_ = file.format;
  return Status::Ok();
}

Status DirectSource::Fetch(const BlockAddress& at, bool verify,
                           ReadBuffer* buffer, BlockCache::Pin* /*pin*/,
                           BlockContents* out) const {
  const PageSpan pages = PagesOf(at);
  FLATBENCH_RETURN_IF_ERROR(
      ReadBlockBytes(fd_.get(), buffer->io(), pages.start, pages.len, at));
  return DecodeAt(format_, buffer->io() + (at.offset - pages.start), at, verify,
                  buffer, out);
}

bool DirectSource::Place(const BlockAddress& at, BatchSlot* slot) const {
  const PageSpan pages = PagesOf(at);
  *slot->read = BlockRead{.fd = fd_.get(),
                          .dst = slot->buffer,
                          .len = static_cast<uint32_t>(pages.len),
                          .offset = pages.start};
  slot->src = slot->buffer + (at.offset - pages.start);
  return true;
}

Status DirectSource::Complete(const BlockAddress& at, Status read, bool verify,
                              BatchSlot* slot, ReadBuffer* buffer,
                              BlockContents* out) const {
  return CompletePlain(format_, at, std::move(read), verify, *slot, buffer,
                       out);
}

}  // namespace flatbench::arena
