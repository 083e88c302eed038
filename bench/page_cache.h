#pragma once
// Page-cache control for a backend's files: evict them (cold modes), make
// them resident and hold them there (warm mode), populate this process's own
// mappings of them, and measure what fraction is resident.
//
// Residency is measured with mincore(2) over a fresh PROT_READ shared mapping
// of each file. For a file mapping mincore reports whether each page is in
// the page cache, whether or not any process has it mapped, and measuring
// faults nothing in.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace flatbench::bench {

struct Residency {
  uint64_t resident_pages = 0;
  uint64_t total_pages = 0;  // Over all non-empty regular files.
  // resident / total; 0 when there are no pages.
  double fraction() const {
    return total_pages ? static_cast<double>(resident_pages) /
                             static_cast<double>(total_pages)
                       : 0.0;
  }
};

enum class EvictMethod {
  kDropCaches,  // sync + "1" > /proc/sys/vm/drop_caches (whole page cache)
  kFadvise,     // posix_fadvise(POSIX_FADV_DONTNEED) on every file
};
const char* EvictMethodName(EvictMethod m);

// Every regular file under `dir` (recursively), in name order; `dir` may
// also be a single file.
Result<std::vector<std::string>> ListFiles(const std::string& dir);

// Summed residency of `files`; empty files are skipped.
Result<Residency> MeasureResidency(const std::vector<std::string>& files);

// The inodes the kernel caches now (the first field of
// /proc/sys/fs/inode-nr), which drop_caches walks; nullopt if unreadable.
std::optional<uint64_t> CachedInodes();

// True when this process may write /proc/sys/vm/drop_caches (checked with
// access(W_OK); the first Evict also proves it with a real write).
bool DropCachesWritable();

// Evicts `files` from the page cache. Uses drop_caches when writable,
// otherwise fadvise; when a drop_caches write fails, falls back to fadvise.
// REQUIRES: no mapping of the files is held by this process (close the
// backend first), or the pages stay resident.
// On success *method says what was used. `allow_drop_caches` = false forces
// fadvise (tests of the unprivileged path).
Status Evict(const std::vector<std::string>& files, EvictMethod* method,
             bool allow_drop_caches = true);

// Reads every file through once, so that its pages enter the page cache.
Status MakeResident(const std::vector<std::string>& files);

// Holds files resident against reclaim while it lives, as `vmtouch -l`
// does: each file is mapped and mlock'ed. Some hosts reclaim idle,
// unmapped page cache within a minute, which would turn a "warm" pass cold
// mid-run; pages that a process keeps mapped (and locked) are not reclaimed.
// When mlock is refused (RLIMIT_MEMLOCK without CAP_IPC_LOCK) the mappings
// are kept, populated, without the lock, and method() says so. At most half
// of vm.max_map_count files are held (one mapping each); the files beyond
// that (a store of one file per key) are not mapped: Refresh() reads them
// into the page cache again, which a warm pass does just before it measures
// residency, and method() says how many files are kept that way.
class ResidentHold {
 public:
  // REQUIRES: the caller checked that the files fit in available memory.
  // `map_budget` caps the files mapped; 0 means half of vm.max_map_count.
  static Result<std::unique_ptr<ResidentHold>> Acquire(
      const std::vector<std::string>& files, size_t map_budget = 0);
  ~ResidentHold();
  ResidentHold(const ResidentHold&) = delete;
  ResidentHold& operator=(const ResidentHold&) = delete;

  uint64_t locked_bytes() const { return locked_bytes_; }
  // Files beyond the mapping budget, kept resident only by Refresh().
  const std::vector<std::string>& unmapped() const { return unmapped_; }
  // Reads the unmapped files into the page cache again (idle page cache may
  // have been reclaimed since); nothing to do when every file is mapped.
  Status Refresh() const;
  // Whether `addr` is the start of one of the hold's own mappings.
  bool Owns(const void* addr) const;
  // "mlock", or "mapped (mlock refused: <reason>)", then "; N of M files
  // re-read into the page cache before each pass, not mapped (...)" when
  // some were not.
  const std::string& method() const { return method_; }

 private:
  ResidentHold() = default;
  struct Map {
    void* addr;
    size_t len;
  };
  std::vector<Map> maps_;
  std::vector<std::string> unmapped_;
  uint64_t locked_bytes_ = 0;
  std::string method_ = "mlock";
};

// Fills this process's page tables for every mapping of `files` that the
// process holds (the backend's own mmap, found in /proc/self/maps), with
// MADV_POPULATE_READ, or by touching one byte per page on kernels without
// it. Afterwards a read of a resident page takes no minor fault, as in a
// long-running process. Returns the bytes populated. Mappings that
// `exclude` owns (the hold's own) are neither touched nor counted.
Result<uint64_t> PopulateOwnMappings(const std::vector<std::string>& files,
                                     const ResidentHold* exclude = nullptr);

}  // namespace flatbench::bench
