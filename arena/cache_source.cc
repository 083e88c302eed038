// A cached block was checked when it was loaded, so a hit decodes without
// the checksum. A block is cached only after its checksum (when asked for)
// and its structure check pass: a corrupt block is never cached, and every
// read of it reports the corruption again.
//
// A cold load through the page cache costs a page allocation, its insertion
// into the file's mapping, LRU work and a 4 KiB copy on top of the device
// read, all charged to the reader; O_DIRECT into the frame skips them
// (RESEARCH.md section 8, "CPU per cold hit of the cached path"). A page
// the page cache already holds (a warm file, a neighbour's read) is copied
// from there instead of read from the device again: the page cache probe
// says which, without touching the page, and is asked only while its
// answers vary (MissStreak: on a cold file, one read in 16). A direct read that
// fails or comes up short (a file system that opens with O_DIRECT but refuses
// the read) is done again buffered, which gives the answer or the error.

#include "arena/cache_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace flatbench::arena {

CacheSource::CacheSource(int fd, int direct_fd, std::string loads,
                         uint64_t cache_bytes)
    : fd_(fd), loads_(std::move(loads)), cache_bytes_(cache_bytes) {
  if (direct_fd >= 0) direct_fd_.emplace(direct_fd);
}

Result<std::unique_ptr<BlockSource>> CacheSource::Open(const SourceOpen& how) {
  int direct_fd = -1;
  std::string why;
  if (how.path == nullptr) {
    why = "opened from a descriptor, no path to open with O_DIRECT";
  } else if (!how.options.direct_cache_loads) {
    why = "O_DIRECT loads not asked for";
  } else {
    // Not fatal: loads are then buffered, as on a file system (or an
    // older tmpfs) that refuses O_DIRECT.
    direct_fd = ::open(how.path->c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
    if (direct_fd < 0) {
      why = std::string("open with O_DIRECT refused: ") + std::strerror(errno);
    }
  }
  const int fd = ::fcntl(how.fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    Status st = Status::FromErrno("dup " + how.name);
    if (direct_fd >= 0) ::close(direct_fd);
    return st;
  }
  return std::unique_ptr<BlockSource>(
      new CacheSource(fd, direct_fd, std::move(why), how.options.cache_bytes));
}

// O_DIRECT needs the file offset, length and buffer aligned to the
// device's logical block: a load reads the block's whole page into a frame
// (or the ReadBuffer's I/O area), so every block must start on a page. An
// uncompressed file's blocks do when each shard's data region does; a
// compressed file packs blocks at any offset.
Status CacheSource::Attach(const FileView& file) {
  format_ = file.format;
  if (file.blocks >= UINT32_MAX) {
    return Status::Usage(
        "the cache read path numbers at most 2^32 - 2 "
        "blocks; this file has " +
        std::to_string(file.blocks));
  }
  FLATBENCH_ASSIGN_OR_RETURN(cache_,
                             BlockCache::Create(file.blocks, cache_bytes_));
  if (direct_fd_) {
    const char* why =
        format_.compressed   ? "compressed blocks are not page-aligned"
        : !file.data_aligned ? "a shard's data region is not page-aligned"
                             : nullptr;
    if (why == nullptr) {
      loads_ = "O_DIRECT";
    } else {
      direct_fd_.reset();
      loads_ = why;
    }
  }
  pages_.Attach(fd_.get(), file.map);
  return Status::Ok();
}

Status CacheSource::Load(char* dst, const BlockAddress& at,
                         ReadBuffer* buffer) const {
  if (direct_fd() >= 0 &&
      !buffer->pages()->Held(pages_, at.offset, kBlockSize)) {
    ssize_t r;
    do {
      r = ::pread(direct_fd(), dst, kBlockSize, static_cast<off_t>(at.offset));
    } while (r < 0 && errno == EINTR);
    if (r >= 0 && static_cast<uint64_t>(r) >= at.avail) {
      buffer->CountDirectRead();
      return Status::Ok();
    }
  }
  return ReadBlockBytes(fd_.get(), dst, at.offset, at.avail, at);
}

// A hit, a load into the cache, or (the block being loaded by another
// thread, or every frame pinned) a read into the ReadBuffer.
Status CacheSource::Fetch(const BlockAddress& at, bool verify,
                          ReadBuffer* buffer, BlockCache::Pin* pin,
                          BlockContents* out) const {
  if (cache_->Lookup(at.id, pin)) {
    return DecodeAt(format_, pin->data(), at, /*verify=*/false, buffer, out);
  }
  BlockCache::Load load;
  char* dst = buffer->io();
  if (cache_->BeginLoad(at.id, &load)) dst = load.data();
  FLATBENCH_RETURN_IF_ERROR(Load(dst, at, buffer));
  FLATBENCH_RETURN_IF_ERROR(DecodeAt(format_, dst, at, verify, buffer, out));
  if (load.claimed()) load.Publish(pin);
  return Status::Ok();
}

// A cached frame is pinned for the batch; any other block is read into a
// frame claimed for it (so a batch warms the cache as Get does), else into
// the batch's buffer, with Load's choice of O_DIRECT or a buffered copy.
bool CacheSource::Place(const BlockAddress& at, BatchSlot* slot) const {
  if (cache_->Lookup(at.id, slot->pin)) {
    slot->src = slot->pin->data();
    slot->checked = true;
    return false;
  }
  char* dst = slot->buffer;
  if (cache_->BeginLoad(at.id, slot->load)) dst = slot->load->data();
  BlockRead read{.fd = fd_.get(),
                 .dst = dst,
                 .len = static_cast<uint32_t>(at.avail),
                 .offset = at.offset};
  if (direct_fd() >= 0 && !slot->pages->Held(pages_, at.offset, kBlockSize)) {
    read.fd = direct_fd();
    read.len = kBlockSize;
    slot->retry_fd = fd_.get();
  }
  *slot->read = read;
  slot->src = dst;
  return true;
}

Status CacheSource::Complete(const BlockAddress& at, Status read, bool verify,
                             BatchSlot* slot, ReadBuffer* buffer,
                             BlockContents* out) const {
  if (!read.ok()) {
    slot->load->Abandon();
    return read;
  }
  if (slot->checked) {
    return DecodeAt(format_, slot->src, at, /*verify=*/false, buffer, out);
  }
  Status st = DecodeAt(format_, slot->src, at, verify, buffer, out);
  if (slot->load->claimed()) {
    if (st.ok()) {
      slot->load->Publish(slot->pin);
    } else {
      slot->load->Abandon();
    }
  }
  return st;
}

}  // namespace flatbench::arena
