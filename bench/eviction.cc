#include "bench/eviction.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <memory>

namespace flatbench::bench {
namespace {

namespace fs = std::filesystem;
constexpr char kDropCaches[] = "/proc/sys/vm/drop_caches";

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

Status ResidencyOf(const std::string& path, Residency* out) {
  Fd f{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  // A file removed since it was listed (a rotated log) holds no pages.
  if (f.fd < 0 && errno == ENOENT) return Status::Ok();
  if (f.fd < 0) return Status::FromErrno("open " + path);
  struct stat st {};
  if (fstat(f.fd, &st) != 0) return Status::FromErrno("stat " + path);
  if (st.st_size == 0) return Status::Ok();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t len = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, len, PROT_READ, MAP_SHARED, f.fd, 0);
  if (map == MAP_FAILED) return Status::FromErrno("mmap " + path);
  size_t pages = (len + page - 1) / page;
  std::unique_ptr<unsigned char[]> vec(new unsigned char[pages]);
  int rc = mincore(map, len, vec.get());
  Status result = rc == 0 ? Status::Ok() : Status::FromErrno("mincore " + path);
  munmap(map, len);
  if (!result.ok()) return result;
  for (size_t i = 0; i < pages; ++i) out->resident_pages += vec[i] & 1;
  out->total_pages += pages;
  return Status::Ok();
}

bool WriteDropCaches() {
  Fd f{open(kDropCaches, O_WRONLY | O_CLOEXEC)};
  if (f.fd < 0) return false;
  return write(f.fd, "1", 1) == 1;
}

Status FadviseDontNeed(const std::vector<std::string>& files) {
  for (const auto& path : files) {
    Fd f{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0 && errno == ENOENT) continue;
    if (f.fd < 0) return Status::FromErrno("open " + path);
    // Dirty pages are not dropped by DONTNEED; write them back first.
    fdatasync(f.fd);
    int rc = posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
    if (rc != 0) {
      errno = rc;
      return Status::FromErrno("posix_fadvise " + path);
    }
  }
  return Status::Ok();
}

}  // namespace

const char* EvictMethodName(EvictMethod m) {
  return m == EvictMethod::kDropCaches ? "drop_caches" : "fadvise";
}

Result<std::vector<std::string>> ListFiles(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> out;
  if (fs::is_regular_file(dir, ec)) return std::vector<std::string>{dir};
  if (!fs::is_directory(dir, ec)) {
    return Status::MissingInput(dir + ": no such directory");
  }
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) out.push_back(it->path().string());
  }
  if (ec) return Status::IOError(dir + ": " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

Result<Residency> MeasureResidency(const std::vector<std::string>& files) {
  Residency r;
  for (const auto& path : files) {
    Status st = ResidencyOf(path, &r);
    if (!st.ok()) return st;
  }
  return r;
}

bool DropCachesWritable() { return access(kDropCaches, W_OK) == 0; }

Status Evict(const std::vector<std::string>& files, EvictMethod* method,
             bool allow_drop_caches) {
  if (allow_drop_caches && DropCachesWritable()) {
    sync();  // drop_caches only drops clean pages.
    if (WriteDropCaches()) {
      *method = EvictMethod::kDropCaches;
      return Status::Ok();
    }
  }
  *method = EvictMethod::kFadvise;
  return FadviseDontNeed(files);
}

Status MakeResident(const std::vector<std::string>& files) {
  std::unique_ptr<char[]> buf(new char[1 << 20]);
  for (const auto& path : files) {
    Fd f{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0 && errno == ENOENT) continue;
    if (f.fd < 0) return Status::FromErrno("open " + path);
    posix_fadvise(f.fd, 0, 0, POSIX_FADV_WILLNEED);
    ssize_t n;
    while ((n = read(f.fd, buf.get(), 1 << 20)) > 0) {
    }
    if (n < 0) return Status::FromErrno("read " + path);
  }
  return Status::Ok();
}

}  // namespace flatbench::bench
