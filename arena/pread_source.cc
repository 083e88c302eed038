// Each read is one system call into memory the caller owns: no allocation.
// O_DIRECT needs offset, length and address aligned to the device's logical
// block; 4 KiB (kBlockSize) covers every common device, and a block is at
// most one page, so its pages are at most two (ReadBuffer::kIoSize).

#include "arena/pread_source.h"

#include <fcntl.h>

#include <utility>

namespace flatbench::arena {

Result<std::unique_ptr<BlockSource>> PreadSource::Open(const SourceOpen& how) {
  const int fd = ::fcntl(how.fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("dup " + how.name);
  return std::unique_ptr<BlockSource>(new PreadSource(fd, false));
}

Result<std::unique_ptr<BlockSource>> PreadSource::OpenDirect(
    const SourceOpen& how) {
  if (how.path == nullptr) {
    return Status::Usage(how.name +
                         ": the direct read path needs Reader::Open");
  }
  const int fd = ::open(how.path->c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  if (fd < 0) return Status::FromErrno("open " + *how.path + " with O_DIRECT");
  return std::unique_ptr<BlockSource>(new PreadSource(fd, true));
}

PreadSource::Span PreadSource::SpanOf(const BlockAddress& at) const {
  if (!whole_pages_) return {at.offset, at.avail};
  const uint64_t start = at.offset & ~uint64_t{kBlockSize - 1};
  const uint64_t end =
      (at.offset + at.avail + kBlockSize - 1) / kBlockSize * kBlockSize;
  return {start, end - start};
}

Status PreadSource::Attach(const FileView& file) {
  format_ = file.format;
  return Status::Ok();
}

Status PreadSource::Fetch(const BlockAddress& at, bool verify,
                          ReadBuffer* buffer, BlockCache::Pin* /*pin*/,
                          BlockContents* out) const {
  const Span span = SpanOf(at);
  FLATBENCH_RETURN_IF_ERROR(
      ReadBlockBytes(fd_.get(), buffer->io(), span.start, span.len, at));
  return DecodeAt(format_, buffer->io() + (at.offset - span.start), at, verify,
                  buffer, out);
}

// A block in the page cache is copied from there by a buffered read (no
// device read); it rides with the others.
bool PreadSource::Place(const BlockAddress& at, BatchSlot* slot) const {
  const Span span = SpanOf(at);
  *slot->read = BlockRead{.fd = fd_.get(),
                          .dst = slot->buffer,
                          .len = static_cast<uint32_t>(span.len),
                          .offset = span.start};
  slot->src = slot->buffer + (at.offset - span.start);
  return true;
}

Status PreadSource::Complete(const BlockAddress& at, Status read, bool verify,
                             BatchSlot* slot, ReadBuffer* buffer,
                             BlockContents* out) const {
  if (!read.ok()) return read;
  return DecodeAt(format_, slot->src, at, verify, buffer, out);
}

}  // namespace flatbench::arena
