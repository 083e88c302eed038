#include "common/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace flatbench {

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(dir);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Status::FromErrno(dir + ": fsync");
  return Status::Ok();
}

Status WriteFileAtomic(const std::string& path, const std::string& contents) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::FromErrno(tmp);
  size_t off = 0;
  while (off < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + off, contents.size() - off);
    if (n < 0) {
      Status st = Status::FromErrno(tmp + ": write");
      ::close(fd);
      ::unlink(tmp.c_str());
      return st;
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Status st = Status::FromErrno(tmp + ": fsync");
    ::unlink(tmp.c_str());
    return st;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status st = Status::FromErrno(path + ": rename");
    ::unlink(tmp.c_str());
    return st;
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  return SyncDir(dir.empty() ? "." : dir);
}

Result<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(path)) {
      return Status::MissingInput(path + ": no such file");
    }
    return Status::IOError(path + ": cannot open for reading");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IOError(path + ": read failed");
  return ss.str();
}

uint64_t DiskBytes(const std::string& path) {
  namespace fs = std::filesystem;
  // Allocated blocks, not file sizes: a store of one small file per key
  // takes a block per file (and per folder) whatever its values' length.
  auto allocated = [](const fs::path& p) -> uint64_t {
    struct stat st {};
    if (lstat(p.c_str(), &st) != 0) return 0;
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return 0;
    return static_cast<uint64_t>(st.st_blocks) * 512;
  };
  std::error_code ec;
  uint64_t total = allocated(path);
  if (!fs::is_directory(path, ec)) return total;
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    total += allocated(it->path());
  }
  return total;
}

std::string HumanBytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", v, kUnits[u]);
  return buf;
}

uint64_t MemAvailableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  uint64_t kb = 0;
  while (in >> key >> kb >> unit) {
    if (key == "MemAvailable:") return kb * 1024;
  }
  return 0;
}

namespace {

// statvfs of `path` or its nearest existing parent; false if unknown.
bool StatNearest(const std::string& path, struct statvfs* st) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  while (!p.empty() && !fs::exists(p, ec)) p = p.parent_path();
  return statvfs(p.c_str(), st) == 0;
}

}  // namespace

uint64_t FreeBytes(const std::string& path) {
  struct statvfs st;
  if (!StatNearest(path, &st)) return 0;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

uint64_t FreeInodes(const std::string& path) {
  struct statvfs st;
  if (!StatNearest(path, &st)) return 0;
  return static_cast<uint64_t>(st.f_favail);
}

uint64_t BlockBytes(const std::string& path) {
  struct statvfs st;
  if (!StatNearest(path, &st)) return 0;
  return static_cast<uint64_t>(st.f_bsize);
}

}  // namespace flatbench
