// cachestat(2) (Linux 6.5) answers for a range of pages in about a quarter
// of mincore's time for one page on a large map (RESEARCH.md section 8), as
// it looks up the file's page cache without walking the map's page tables.
// Its number is the same on every architecture this builds for (system
// calls from 424 on share one number), and the C library may not name it
// yet. Attach probes it once; without it, mincore.

#include "arena/page_cache_probe.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arena/format.h"

namespace flatbench::arena {
namespace {

// cachestat(2)'s number and structures (linux/mman.h, Linux 6.5).
constexpr long kSysCachestat = 451;
struct CachestatRange {
  uint64_t off;
  uint64_t len;
};
struct Cachestat {
  uint64_t nr_cache;
  uint64_t nr_dirty;
  uint64_t nr_writeback;
  uint64_t nr_evicted;
  uint64_t nr_recently_evicted;
};

}  // namespace

void PageCacheProbe::Attach(int fd, const char* map) {
  fd_ = fd;
  map_ = map;
#if defined(__x86_64__) || defined(__aarch64__)
  if (fd_ < 0) return;
  CachestatRange range{0, kBlockSize};
  Cachestat stat{};
  cachestat_ = ::syscall(kSysCachestat, fd_, &range, &stat, 0) == 0;
#endif
}

bool PageCacheProbe::Holds(uint64_t offset, uint64_t len) const {
  const uint64_t first = offset / kBlockSize;
  const uint64_t last = (offset + len - 1) / kBlockSize;
#if defined(__x86_64__) || defined(__aarch64__)
  if (cachestat_) {
    CachestatRange range{first * kBlockSize, (last - first + 1) * kBlockSize};
    Cachestat stat{};
    if (::syscall(kSysCachestat, fd_, &range, &stat, 0) == 0) {
      return stat.nr_cache == last - first + 1;
    }
  }
#endif
  for (uint64_t page = first; page <= last; ++page) {
    unsigned char resident = 0;
    if (::mincore(const_cast<char*>(map_) + page * kBlockSize, kBlockSize,
                  &resident) != 0 ||
        (resident & 1) == 0) {
      return false;
    }
  }
  return true;
}

bool MissStreak::Held(const PageCacheProbe& probe, uint64_t offset,
                      uint64_t len) {
  if (missing_ >= kStreak && ++skipped_ < kRecheck) return false;
  skipped_ = 0;
  ++asked_;
  const bool h = probe.Holds(offset, len);
  missing_ = h ? 0 : missing_ + (missing_ < kStreak);
  return h;
}

void PageTrend::Begin() {
  asked_ = false;
  trend_ = 0;
  all_held_ = true;
  none_held_ = true;
}

bool PageTrend::Held(const PageCacheProbe& probe, uint64_t offset,
                     uint64_t len) {
  if (asked_ && trend_ != 0) return trend_ > 0;
  const bool h = probe.Holds(offset, len);
  if (!asked_) {
    asked_ = true;
    if (last_ > 0 && h) trend_ = 1;
    if (last_ < 0 && !h) trend_ = -1;
  }
  all_held_ = all_held_ && h;
  none_held_ = none_held_ && !h;
  return h;
}

void PageTrend::End() {
  if (asked_) last_ = all_held_ ? 1 : none_held_ ? -1 : 0;
}

}  // namespace flatbench::arena
