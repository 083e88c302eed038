// What every block source shares: the decode of a block's bytes and the
// pread loop that fills the caller's buffer.

#include "arena/block_source.h"

#include <unistd.h>

#include <cerrno>

namespace flatbench::arena {

const std::string& BlockSource::cache_loads() const {
  static const std::string* const kNone = new std::string();
  return *kNone;
}

Status DecodeAt(const BlockFormat& format, const char* p,
                const BlockAddress& at, bool verify, ReadBuffer* buffer,
                BlockContents* out) {
  return DecodeBlock(p, at.avail, at.offset, format.key_width,
                     format.compressed, verify,
                     buffer != nullptr ? buffer->data() : nullptr,
                     buffer != nullptr ? buffer->dctx() : nullptr, out);
}

Status ReadAt(int fd, char* dst, uint64_t len, uint64_t offset,
              uint64_t* done) {
  *done = 0;
  while (*done < len) {
    const ssize_t r = ::pread(fd, dst + *done, len - *done,
                              static_cast<off_t>(offset + *done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("read at offset " + std::to_string(offset));
    }
    if (r == 0) break;  // end of file: only the aligned tail can be short
    *done += static_cast<uint64_t>(r);
  }
  return Status::Ok();
}

Status ReadBlockBytes(int fd, char* dst, uint64_t start, uint64_t len,
                      const BlockAddress& at) {
  uint64_t done = 0;
  FLATBENCH_RETURN_IF_ERROR(ReadAt(fd, dst, len, start, &done));
  if (done < at.offset - start + at.avail) {
    return Status::IOError("short read at offset " + std::to_string(at.offset));
  }
  return Status::Ok();
}

}  // namespace flatbench::arena
