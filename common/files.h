#pragma once
// Small filesystem helpers shared by the loaders and the CLI.

#include <cstdint>
#include <string>

#include "common/status.h"

namespace flatbench {

// Owns a file descriptor and closes it when it goes out of scope.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

// Writes `contents` to `path` through "<path>.tmp", fsync and rename, so a
// crash leaves either the old file or the whole new one.
Status WriteFileAtomic(const std::string& path, const std::string& contents);
// Reads a whole (small) file.
Result<std::string> ReadSmallFile(const std::string& path);
// fsyncs a directory, making renames and creations in it durable.
Status SyncDir(const std::string& dir);
// Bytes allocated on disk (st_blocks) to `path` and, for a directory, to
// every file and folder under it.
uint64_t DiskBytes(const std::string& path);
// "12.3 MiB" style.
std::string HumanBytes(uint64_t bytes);

// What the host has: MemAvailable from /proc/meminfo (0 if unreadable), and
// the free bytes of the filesystem holding `path` or its nearest existing
// parent (0 if unknown).
uint64_t MemAvailableBytes();
uint64_t FreeBytes(const std::string& path);
// Free inodes and the block size of that filesystem (0 if unknown).
uint64_t FreeInodes(const std::string& path);
uint64_t BlockBytes(const std::string& path);

}  // namespace flatbench
