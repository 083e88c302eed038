#include "arena/file_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace flatbench::arena {
namespace {

constexpr size_t kBufferSize = 1 << 20;
// Writeback is started every this many bytes (sync_file_range), so the
// disk writes while the builder computes, and the final fsync waits for
// the last stretch only, not the whole file.
constexpr uint64_t kWriteBehindBytes = 32 << 20;

Status WriteFully(int fd, const char* p, size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("write " + path);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<FileWriter>> FileWriter::Create(
    const std::string& path) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    // A missing parent directory is an I/O problem of the output, not a
    // missing input.
    Status st = Status::FromErrno("create " + path);
    return Status::IOError(st.message());
  }
  return std::unique_ptr<FileWriter>(new FileWriter(path, fd));
}

FileWriter::FileWriter(std::string path, int fd)
    : path_(std::move(path)), fd_(fd) {
  buffer_.reserve(kBufferSize);
}

FileWriter::~FileWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Status FileWriter::WriteOut(const char* p, size_t n) {
  FLATBENCH_RETURN_IF_ERROR(WriteFully(fd_, p, n, path_));
  written_ += n;
  if (written_ - writeback_ >= kWriteBehindBytes) {
    // Advice only: an error here (a file system without it) changes
    // nothing the fsync at the end does not check.
    ::sync_file_range(fd_, static_cast<off_t>(writeback_),
                      static_cast<off_t>(written_ - writeback_),
                      SYNC_FILE_RANGE_WRITE);
    writeback_ = written_;
  }
  return Status::Ok();
}

Status FileWriter::Append(std::string_view data) {
  offset_ += data.size();
  if (buffer_.size() + data.size() > kBufferSize) {
    FLATBENCH_RETURN_IF_ERROR(Flush());
    if (data.size() >= kBufferSize) return WriteOut(data.data(), data.size());
  }
  buffer_.insert(buffer_.end(), data.begin(), data.end());
  return Status::Ok();
}

Status FileWriter::PadTo(uint64_t alignment) {
  static constexpr char kZeros[4096] = {};
  uint64_t pad = (alignment - offset_ % alignment) % alignment;
  while (pad > 0) {
    const size_t n = pad < sizeof kZeros ? pad : sizeof kZeros;
    FLATBENCH_RETURN_IF_ERROR(Append(std::string_view(kZeros, n)));
    pad -= n;
  }
  return Status::Ok();
}

Status FileWriter::WriteAt(uint64_t offset, std::string_view data) {
  FLATBENCH_RETURN_IF_ERROR(Flush());
  const char* p = data.data();
  size_t n = data.size();
  while (n > 0) {
    const ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
    if (w < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno("write " + path_);
    }
    p += w;
    n -= static_cast<size_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return Status::Ok();
}

Status FileWriter::Flush() {
  if (buffer_.empty()) return Status::Ok();
  Status st = WriteOut(buffer_.data(), buffer_.size());
  buffer_.clear();
  return st;
}

Status FileWriter::SyncAndClose() {
  FLATBENCH_RETURN_IF_ERROR(Flush());
  if (::fsync(fd_) != 0) return Status::FromErrno("fsync " + path_);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return Status::FromErrno("close " + path_);
  return Status::Ok();
}

Status RenameDurably(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    return Status::FromErrno("rename " + from + " to " + to);
  }
  const size_t slash = to.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : to.substr(0, slash);
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno("open directory " + dir);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Status::FromErrno("fsync directory " + dir);
  return Status::Ok();
}

}  // namespace flatbench::arena
