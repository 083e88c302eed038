#include "bench/page_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <unordered_map>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older headers lack the name.
#endif

#include "common/files.h"

namespace flatbench::bench {
namespace {

namespace fs = std::filesystem;
constexpr char kDropCaches[] = "/proc/sys/vm/drop_caches";

Status ResidencyOf(const std::string& path, Residency* out) {
  UniqueFd f(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  // A file removed since it was listed (a rotated log) holds no pages.
  if (f.get() < 0 && errno == ENOENT) return Status::Ok();
  if (f.get() < 0) return Status::FromErrno("open " + path);
  struct stat st {};
  if (fstat(f.get(), &st) != 0) return Status::FromErrno("stat " + path);
  if (st.st_size == 0) return Status::Ok();
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t len = static_cast<size_t>(st.st_size);
  void* map = mmap(nullptr, len, PROT_READ, MAP_SHARED, f.get(), 0);
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

// Half of vm.max_map_count (65530 by default), for ResidentHold.
size_t MapBudget() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  size_t max_maps = 0;
  if (!(in >> max_maps) || max_maps < 2) max_maps = 65530;
  return max_maps / 2;
}

bool WriteDropCaches() {
  UniqueFd f(open(kDropCaches, O_WRONLY | O_CLOEXEC));
  if (f.get() < 0) return false;
  return write(f.get(), "1", 1) == 1;
}

Status FadviseDontNeed(const std::vector<std::string>& files) {
  for (const auto& path : files) {
    UniqueFd f(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (f.get() < 0 && errno == ENOENT) continue;
    if (f.get() < 0) return Status::FromErrno("open " + path);
    // Dirty pages are not dropped by DONTNEED; write them back first.
    // sync_file_range, not fdatasync: clean pages are all eviction needs,
    // and fdatasync makes ext4 flush the device cache once per file, which
    // for a store of one file per key costs minutes.
    sync_file_range(f.get(), 0, 0,
                    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                        SYNC_FILE_RANGE_WAIT_AFTER);
    int rc = posix_fadvise(f.get(), 0, 0, POSIX_FADV_DONTNEED);
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

std::optional<uint64_t> CachedInodes() {
  std::ifstream in("/proc/sys/fs/inode-nr");
  uint64_t n = 0;
  if (!(in >> n)) return std::nullopt;
  return n;
}

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
    UniqueFd f(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (f.get() < 0 && errno == ENOENT) continue;
    if (f.get() < 0) return Status::FromErrno("open " + path);
    posix_fadvise(f.get(), 0, 0, POSIX_FADV_WILLNEED);
    ssize_t n;
    while ((n = read(f.get(), buf.get(), 1 << 20)) > 0) {
    }
    if (n < 0) return Status::FromErrno("read " + path);
  }
  return Status::Ok();
}

ResidentHold::~ResidentHold() {
  for (const auto& m : maps_) {
    munlock(m.addr, m.len);
    munmap(m.addr, m.len);
  }
}

Result<std::unique_ptr<ResidentHold>> ResidentHold::Acquire(
    const std::vector<std::string>& files, size_t map_budget) {
  std::unique_ptr<ResidentHold> h(new ResidentHold());
  // One mapping per file, and a process may hold only vm.max_map_count
  // mappings: half of them is the hold's budget, the rest is the backend's
  // and the threads'. A store of more files (the fs store: one per key)
  // has the rest read into the page cache again by Refresh() before each
  // pass.
  const size_t budget = map_budget > 0 ? map_budget : MapBudget();
  bool locking = true;
  for (const auto& path : files) {
    if (h->maps_.size() >= budget) {
      h->unmapped_.push_back(path);
      continue;
    }
    UniqueFd f(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (f.get() < 0) return Status::FromErrno("open " + path);
    struct stat st {};
    if (fstat(f.get(), &st) != 0) return Status::FromErrno("stat " + path);
    if (st.st_size == 0) continue;
    const size_t len = static_cast<size_t>(st.st_size);
    void* addr = mmap(nullptr, len, PROT_READ, MAP_SHARED, f.get(), 0);
    if (addr == MAP_FAILED) return Status::FromErrno("mmap " + path);
    h->maps_.push_back({addr, len});
    // Fault every page into the mapping first: mapped pages are not
    // reclaimed or dropped by fadvise even where mlock does nothing (as
    // under AddressSanitizer, which turns it into a no-op).
    if (madvise(addr, len, MADV_POPULATE_READ) != 0) {
      const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
      volatile const char* p = static_cast<const char*>(addr);
      for (size_t off = 0; off < len; off += page) (void)p[off];
    }
    if (locking) {
      if (mlock(addr, len) == 0) {
        h->locked_bytes_ += len;
      } else {
        locking = false;
        h->method_ =
            std::string("mapped (mlock refused: ") + std::strerror(errno) + ")";
      }
    }
  }
  if (!h->unmapped_.empty()) {
    h->method_ += "; " + std::to_string(h->unmapped_.size()) + " of " +
                  std::to_string(files.size()) +
                  " files re-read into the page cache before each pass, not "
                  "mapped (one mapping per file, " +
                  std::to_string(budget) + " at most)";
    FLATBENCH_RETURN_IF_ERROR(h->Refresh());
  }
  std::sort(h->maps_.begin(), h->maps_.end(), [](const Map& a, const Map& b) {
    return std::less<>()(a.addr, b.addr);
  });
  return h;
}

Status ResidentHold::Refresh() const { return MakeResident(unmapped_); }

bool ResidentHold::Owns(const void* addr) const {
  auto it = std::lower_bound(
      maps_.begin(), maps_.end(), addr,
      [](const Map& m, const void* a) { return std::less<>()(m.addr, a); });
  return it != maps_.end() && it->addr == addr;
}

Result<uint64_t> PopulateOwnMappings(const std::vector<std::string>& files,
                                     const ResidentHold* exclude) {
  struct Id {
    dev_t dev;
    ino_t ino;
    off_t size;
  };
  // By inode: a store may have hundreds of thousands of files.
  std::unordered_multimap<ino_t, Id> ids;
  for (const auto& path : files) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return Status::FromErrno("stat " + path);
    ids.emplace(st.st_ino, Id{st.st_dev, st.st_ino, st.st_size});
  }
  std::ifstream maps("/proc/self/maps");
  if (!maps) return Status::IOError("/proc/self/maps: cannot be read");
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  uint64_t populated = 0;
  std::string line;
  while (std::getline(maps, line)) {
    unsigned long start = 0, end = 0, offset = 0, inode = 0;
    unsigned major_no = 0, minor_no = 0;
    char perms[8] = {0};
    if (std::sscanf(line.c_str(), "%lx-%lx %7s %lx %x:%x %lu", &start, &end,
                    perms, &offset, &major_no, &minor_no, &inode) != 7 ||
        inode == 0 || perms[0] != 'r' ||
        (exclude != nullptr &&
         exclude->Owns(reinterpret_cast<const void*>(start)))) {
      continue;
    }
    auto [first, last] = ids.equal_range(static_cast<ino_t>(inode));
    for (auto it = first; it != last; ++it) {
      const Id& id = it->second;
      if (major(id.dev) != major_no || minor(id.dev) != minor_no) {
        continue;
      }
      // Only the part of the mapping the file backs: touching past its end
      // would raise SIGBUS (LMDB maps more than its file holds).
      const uint64_t file_left =
          static_cast<uint64_t>(id.size) > offset ? id.size - offset : 0;
      uint64_t len = std::min<uint64_t>(end - start, file_left);
      len = len / page * page;
      if (len == 0) break;
      void* addr = reinterpret_cast<void*>(start);
      if (madvise(addr, len, MADV_POPULATE_READ) != 0) {
        if (errno != EINVAL) {
          return Status::FromErrno(
              "madvise(MADV_POPULATE_READ) on a map of "
              "inode " +
              std::to_string(inode));
        }
        volatile const char* p = static_cast<const char*>(addr);
        for (uint64_t off = 0; off < len; off += page) (void)p[off];
      }
      populated += len;
      break;
    }
  }
  return populated;
}

}  // namespace flatbench::bench
