// Why each choice (see block_cache.h for the structure):
//
// - Frames come from one anonymous mapping in 2 MiB pages where allowed
//   (MapFrames): a block arrives by pread, never by a fault on the file's
//   mapping, which is the path the cached read path exists to avoid
//   (RESEARCH.md §8).
// - The per-block word makes a hit one load plus one pin; a file of 25M
//   blocks (full scale's storage table) costs 100 MB of words, half its
//   resident index.
// - Pins and tags are paired in sequentially consistent order: a reader
//   increments the pin, then reads the tag; an evictor swaps the tag to
//   kBusy, then reads the pins. One of the two always sees the other, so a
//   frame is never refilled under a reader that trusts it.
// - A Lookup of the block its pin already holds keeps that pin: the held
//   pin is what stops the frame being refilled, so the frame still holds
//   the block, and the hit costs no atomic read-modify-write (a session
//   reading several keys of one block, as slots of one account, pins once).
// - CLOCK with a reference bit, set only when clear, so hot frames' lines
//   are not written on every hit.

#include "arena/block_cache.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace flatbench::arena {

Result<std::unique_ptr<BlockCache>> BlockCache::Create(
    uint64_t blocks, uint64_t capacity_bytes) {
  if (blocks >= BlockCache::kLoading) {
    return Status::Usage("block cache: " + std::to_string(blocks) +
                         " blocks is more than a cache can number");
  }
  std::unique_ptr<BlockCache> c(new BlockCache());
  c->blocks_ = blocks;
  const uint64_t wanted = std::max<uint64_t>(capacity_bytes / kBlockSize, 64);
  c->slots_ = std::min(wanted, blocks);
  c->where_ = std::make_unique<std::atomic<uint32_t>[]>(blocks);
  for (uint64_t i = 0; i < blocks; ++i) {
    c->where_[i].store(0, std::memory_order_relaxed);
  }
  c->slot_ = std::make_unique<Slot[]>(c->slots_);
  if (c->slots_ > 0) {
    FLATBENCH_RETURN_IF_ERROR(c->MapFrames());
  }
  return c;
}

namespace {

constexpr uint64_t kHugePage = uint64_t{2} << 20;

// The frame memory of the caches this process closed, kept for the next
// ones (at most kMaxSpares mappings; a store opens one cache per table).
// Why: a frame's first write costs a zero-filled anonymous fault, which on
// a virtual machine whose host reclaims free guest memory is slow, and
// every reader claiming a frame of that 2 MiB page waits for it (RESEARCH.md
// section 12). A cache that has run a while reuses evicted
// frames and faults nothing; a cache opened after another in the same
// process now starts that way too (a benchmark's cold pass reopens the
// store each time). The stale bytes are never read: a frame is read only
// after a load has filled and checked it.
constexpr size_t kMaxSpares = 4;

struct SpareFrames {
  std::mutex mu;
  std::vector<std::pair<char*, uint64_t>> maps;  // oldest first
};

SpareFrames& Spare() {
  static SpareFrames* spare = new SpareFrames();  // never destroyed
  return *spare;
}

// The smallest spare mapping of at least `bytes` (its size in *got), or
// null when none is that large.
char* TakeSpare(uint64_t bytes, uint64_t* got) {
  SpareFrames& s = Spare();
  std::lock_guard<std::mutex> lock(s.mu);
  auto best = s.maps.end();
  for (auto it = s.maps.begin(); it != s.maps.end(); ++it) {
    // Of equal sizes the newest: its memory was touched last.
    if (it->second >= bytes &&
        (best == s.maps.end() || it->second <= best->second)) {
      best = it;
    }
  }
  if (best == s.maps.end()) return nullptr;
  char* m = best->first;
  *got = best->second;
  s.maps.erase(best);
  return m;
}

// Keeps `map` as a spare, unmapping the oldest one past kMaxSpares.
void KeepSpare(char* map, uint64_t bytes) {
  SpareFrames& s = Spare();
  std::lock_guard<std::mutex> lock(s.mu);
  s.maps.emplace_back(map, bytes);
  if (s.maps.size() > kMaxSpares) {
    ::munmap(s.maps.front().first, s.maps.front().second);
    s.maps.erase(s.maps.begin());
  }
}

}  // namespace

// Frames sit in 2 MiB pages where the kernel allows (MADV_HUGEPAGE; THP is
// often "madvise"-only): a hit at a random frame then costs no page walk,
// as a hit through the file's map, whose page cache uses large folios, does
// not. The mapping is aligned to 2 MiB by over-allocating. It is not
// populated at open: writing every frame would cost each cold open seconds
// (RESEARCH.md section 12). A frame's memory arrives with the first read into
// it, an anonymous fault (one per 2 MiB page, zero-filled), unless the frames
// are the spare ones of a cache closed before (SpareFrames above); a full
// cache reuses evicted frames and faults nothing (RESEARCH.md section 8,
// "CPU per cold hit of the cached path").
Status BlockCache::MapFrames() {
  const uint64_t wanted = frame_bytes() + kHugePage;
  map_ = TakeSpare(wanted, &map_bytes_);
  reused_frames_ = map_ != nullptr;
  if (map_ == nullptr) {
    void* m = ::mmap(nullptr, wanted, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      return Status::FromErrno("block cache: map " +
                               std::to_string(frame_bytes()) + " bytes");
    }
    map_ = static_cast<char*>(m);
    map_bytes_ = wanted;
  }
  const uint64_t base = reinterpret_cast<uint64_t>(map_);
  frames_ = map_ + ((kHugePage - base % kHugePage) % kHugePage);
  // Advice only: without it the frames are 4 KiB pages, slower, not wrong.
  (void)::madvise(frames_, frame_bytes(), MADV_HUGEPAGE);
  return Status::Ok();
}

BlockCache::~BlockCache() {
  // A pin outliving its cache would unpin freed memory (a ReadBuffer kept
  // past its Reader: reader.h, "Lifetime").
  // It is a caller's bug, found here rather than as a write to freed
  // memory.
  for (uint64_t s = 0; s < slots_; ++s) {
    if (slot_[s].pins.load(std::memory_order_relaxed) != 0) {
      std::fprintf(stderr,
                   "arena block cache destroyed with frame %llu still "
                   "pinned: a ReadBuffer outlived its Reader\n",
                   static_cast<unsigned long long>(s));
      std::abort();
    }
  }
  if (map_ != nullptr) KeepSpare(map_, map_bytes_);
}

void BlockCache::Pin::Release() {
  if (cache_ == nullptr) return;
  cache_->Unpin(slot_);
  cache_ = nullptr;
  data_ = nullptr;
}

void BlockCache::Unpin(uint32_t slot) {
  slot_[slot].pins.fetch_sub(1, std::memory_order_release);
}

bool BlockCache::Lookup(uint32_t block, Pin* pin) {
  if (pin->cache_ == this && pin->block_ == block) {
    // A held pin keeps its frame from being refilled (ClaimFrame), so the
    // frame still holds `block`: no second pin, no tag check.
    Slot& sl = slot_[pin->slot_];
    if (sl.referenced.load(std::memory_order_relaxed) == 0) {
      sl.referenced.store(1, std::memory_order_relaxed);
    }
    return true;
  }
  pin->Release();
  const uint32_t w = where_[block].load(std::memory_order_acquire);
  if (w == 0 || w == kLoading) return false;
  const uint32_t s = w - 1;
  Slot& sl = slot_[s];
  sl.pins.fetch_add(1, std::memory_order_seq_cst);
  if (sl.tag.load(std::memory_order_seq_cst) != block + 1) {
    Unpin(s);  // evicted (and perhaps refilled) since `w` was read
    return false;
  }
  if (sl.referenced.load(std::memory_order_relaxed) == 0) {
    sl.referenced.store(1, std::memory_order_relaxed);
  }
  pin->cache_ = this;
  pin->block_ = block;
  pin->slot_ = s;
  pin->data_ = Frame(s);
  return true;
}

// Sweeps at most three times round: once to clear reference bits, once to
// find an unreferenced, unpinned frame, and once more for frames that were
// pinned on the way. Every frame pinned at once (more readers than frames)
// gives up rather than wait.
bool BlockCache::ClaimFrame(uint32_t* slot) {
  for (uint64_t i = 0; i < 3 * slots_; ++i) {
    const uint32_t s = static_cast<uint32_t>(
        hand_.fetch_add(1, std::memory_order_relaxed) % slots_);
    Slot& sl = slot_[s];
    uint32_t tag = sl.tag.load(std::memory_order_relaxed);
    if (tag == kBusy) continue;
    if (tag != 0 && sl.referenced.load(std::memory_order_relaxed) != 0) {
      sl.referenced.store(0, std::memory_order_relaxed);
      continue;
    }
    if (!sl.tag.compare_exchange_strong(tag, kBusy,
                                        std::memory_order_seq_cst)) {
      continue;
    }
    if (sl.pins.load(std::memory_order_seq_cst) != 0) {
      sl.tag.store(tag, std::memory_order_seq_cst);
      continue;
    }
    if (tag != 0) {
      uint32_t mine = s + 1;
      where_[tag - 1].compare_exchange_strong(mine, 0,
                                              std::memory_order_acq_rel);
      evictions_.fetch_add(1, std::memory_order_relaxed);
    }
    *slot = s;
    return true;
  }
  return false;
}

bool BlockCache::BeginLoad(uint32_t block, Load* load) {
  load->Abandon();
  uint32_t expected = 0;
  if (!where_[block].compare_exchange_strong(expected, kLoading,
                                             std::memory_order_acq_rel)) {
    return false;
  }
  uint32_t s = 0;
  if (slots_ == 0 || !ClaimFrame(&s)) {
    where_[block].store(0, std::memory_order_release);
    return false;
  }
  load->cache_ = this;
  load->block_ = block;
  load->slot_ = s;
  load->data_ = Frame(s);
  return true;
}

void BlockCache::Load::Publish(Pin* pin) {
  pin->Release();
  Slot& sl = cache_->slot_[slot_];
  sl.pins.fetch_add(1, std::memory_order_seq_cst);
  sl.referenced.store(1, std::memory_order_relaxed);
  sl.tag.store(block_ + 1, std::memory_order_seq_cst);
  cache_->where_[block_].store(slot_ + 1, std::memory_order_release);
  cache_->loads_.fetch_add(1, std::memory_order_relaxed);
  pin->cache_ = cache_;
  pin->block_ = block_;
  pin->slot_ = slot_;
  pin->data_ = data_;
  cache_ = nullptr;
  data_ = nullptr;
}

void BlockCache::Load::Abandon() {
  if (cache_ == nullptr) return;
  cache_->slot_[slot_].tag.store(0, std::memory_order_seq_cst);
  cache_->where_[block_].store(0, std::memory_order_release);
  cache_ = nullptr;
  data_ = nullptr;
}

}  // namespace flatbench::arena
