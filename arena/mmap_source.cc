// Why: a warm hit through the map costs no system call and no copy; the
// Reader's MADV_RANDOM keeps a cold one to the block's own page
// (reader_open.cc). The verify-once bitmap makes a checked read cost its
// checksum once per block per open, not once per read (FORMAT.md,
// "Checksums", for the residual risk).

#include "arena/mmap_source.h"

#include <fcntl.h>

namespace flatbench::arena {

Result<std::unique_ptr<BlockSource>> MmapSource::Open(const SourceOpen& how) {
  const ReaderOptions& o = how.options;
  return std::unique_ptr<BlockSource>(
      new MmapSource(::fcntl(how.fd, F_DUPFD_CLOEXEC, 0),
                     o.verify_checksums && !o.verify_every_read));
}

Status MmapSource::Attach(const FileView& file) {
  map_ = file.map;
  format_ = file.format;
  // Block numbers are u32: a file past 2^32 - 2 blocks is checked on
  // every read instead.
  if (check_once_ && file.blocks < UINT32_MAX) {
    verified_ =
        std::make_unique<std::atomic<uint64_t>[]>((file.blocks + 63) / 64);
  }
  pages_.Attach(fd_.get(), map_);
  return Status::Ok();
}

// Verify once per open (reader.h): a block checked by an earlier read is
// trusted; a first read checks it and records that. Without the bitmap
// `verify` stands.
Status MmapSource::DecodeOnce(const BlockAddress& at, const char* p,
                              bool verify, ReadBuffer* buffer,
                              BlockContents* out) const {
  if (verify && verified_ != nullptr) {
    if (Verified(at.id)) {
      verify = false;
    } else {
      Status st = DecodeAt(format_, p, at, /*verify=*/true, buffer, out);
      if (st.ok()) MarkVerified(at.id);
      return st;
    }
  }
  return DecodeAt(format_, p, at, verify, buffer, out);
}

Status MmapSource::Fetch(const BlockAddress& at, bool verify,
                         ReadBuffer* buffer, BlockCache::Pin* /*pin*/,
                         BlockContents* out) const {
  return DecodeOnce(at, map_ + at.offset, verify, buffer, out);
}

// Pages the page cache holds are read through the map, as Get reads them;
// without a descriptor, every block is.
bool MmapSource::Place(const BlockAddress& at, BatchSlot* slot) const {
  if (!fd_.ok() || slot->pages->Held(pages_, at.offset, at.avail)) {
    slot->src = map_ + at.offset;
    return false;
  }
  *slot->read = BlockRead{.fd = fd_.get(),
                          .dst = slot->buffer,
                          .len = static_cast<uint32_t>(at.avail),
                          .offset = at.offset};
  slot->src = slot->buffer;
  return true;
}

Status MmapSource::Complete(const BlockAddress& at, Status read, bool verify,
                            BatchSlot* slot, ReadBuffer* buffer,
                            BlockContents* out) const {
  if (!read.ok()) return read;
  return DecodeOnce(at, slot->src, verify, buffer, out);
}

}  // namespace flatbench::arena
