#pragma once
// Whether the page cache holds a range of the file, asked without touching
// its pages (PageCacheProbe), and a batch's way of asking it only while the
// answers vary (PageTrend). The mmap and cache sources ask it: a batch
// decodes a held block through the map, and the cache path loads a missing
// block with O_DIRECT rather than through the page cache.

#include <cstdint>

namespace flatbench::arena {

class PageCacheProbe {
 public:
  // Asks of `fd` with cachestat(2), where this kernel has it (fd -1: never),
  // else of `map` (the whole file, read-only) with mincore(2). Probes
  // cachestat once. Not thread-safe; call it before any Holds.
  void Attach(int fd, const char* map);
  // Whether every page holding bytes [offset, offset + len) is in the page
  // cache (false when unknown). REQUIRES: len > 0 and the range within the
  // file. Thread-safe, lock-free, no allocation.
  bool Holds(uint64_t offset, uint64_t len) const;

 private:
  int fd_ = -1;
  const char* map_ = nullptr;
  bool cachestat_ = false;  // Holds may use cachestat(2)
};

// A thread's questions for its single reads (Get on the cache path), asked
// only while the answers vary, as PageTrend asks a batch's. After kStreak
// answers in a row that a block is missing (a cold file), only one read in
// kRecheck is asked and the others are taken as missing; one held answer
// ends the streak, and every read is asked again. A cold read then makes
// one system call, its O_DIRECT read, instead of two (RESEARCH.md section
// 8, "The fast device: CPU per cold hit"). A block taken as missing that
// the page cache held after all is read from the device again: the same
// bytes, checked the same way, at a device read's cost. Belongs to a
// ReadBuffer, so to one thread at a time.
class MissStreak {
 public:
  static constexpr uint32_t kStreak = 16;
  static constexpr uint32_t kRecheck = 16;
  // Whether the page cache holds bytes [offset, offset + len): `probe`'s
  // answer, or missing while a streak lasts.
  bool Held(const PageCacheProbe& probe, uint64_t offset, uint64_t len);
  // Questions put to the probe so far (a statistic for tests).
  uint64_t asked() const { return asked_; }

 private:
  uint32_t missing_ = 0;  // missing answers in a row
  uint32_t skipped_ = 0;  // reads taken as missing since the last question
  uint64_t asked_ = 0;
};

// A batch's questions to the page cache (one per block it would read). After
// a batch that found every block it asked of held (a warm file) or every one
// missing (a cold one), only the next batch's first block is asked, and when
// its answer is the same the others are taken to be the same: a batch then
// costs one question, not one a block. A block taken to be held but evicted
// meanwhile is read by its page fault (mmap), as Get reads it; one taken to
// be missing is read from the device (a buffered read copies it from the
// page cache if it is there after all; the cache path's O_DIRECT read reads
// it again). Belongs to one batch scratch, so to one thread at a time.
class PageTrend {
 public:
  // Starts a batch's questions.
  void Begin();
  // Whether the page cache holds bytes [offset, offset + len): `probe`'s
  // answer, or the trend's.
  bool Held(const PageCacheProbe& probe, uint64_t offset, uint64_t len);
  // Ends the batch: its answers set the next batch's trend.
  void End();

 private:
  // What the last batch found when it asked: +1 every block held, -1 every
  // one missing, 0 some of each (or nothing asked).
  int last_ = 0;
  // This batch's answers so far: whether any block was asked, what the
  // first answer let the others be taken as (+1, -1, or 0: ask each), and
  // whether every answer was held, or missing.
  bool asked_ = false;
  int trend_ = 0;
  bool all_held_ = true;
  bool none_held_ = true;
};

}  // namespace flatbench::arena
