// Reader::MultiGet: a batch of lookups, its reads in flight together.
//
// 1. Plan, key by key: the filter probe and index search, through memory
//    only (the index and filter are resident, or in the map). Keys the
//    filter rejects or that sort before their shard are answered here; a
//    key whose 8-byte prefix starts several blocks (imported data with a
//    long common prefix) is left to Get, which searches those blocks.
// 2. Hint: every planned block's first lines are asked for from memory,
//    back to back, so their page walks and misses overlap.
// 3. Group: keys of one block share its group (a table of the batch's
//    block numbers), so duplicates and neighbours share one read.
// 4. Place, as a group is made: a block already in memory is not read
//    again. On the mmap path a block whose pages the page cache holds is
//    decoded from the map; on the cache path a cached frame is pinned (the
//    page cache is asked once a batch while its answers agree: Held).
//    Every other block gets a read: into a frame claimed in the block cache
//    (the cache path, so the batch warms the cache as Get does), else into
//    one of the session's page-aligned slots; O_DIRECT where the path uses
//    it. The read is submitted at once (BatchIo: io_uring, or a pread), so
//    the device works while the rest of the batch is placed.
// 5. Decode: the blocks already in memory while the reads are in flight,
//    then each read block as its completion arrives; with DecodeRead or,
//    for a cache load, DecodeBlock with the load's check, exactly as Get's
//    read paths do. A block that fails fails only its own keys. A loaded
//    frame is published only after its check passes, as FetchCached does.
//
// Values are views into the bytes of their block where these stay put
// until the scratch's next batch: the map, a cached frame (pinned until
// then; BatchScratch::Release), or the group's own slot. A value that lives
// elsewhere (a decompressed block, reused by the next group, or a key Get
// answers) is copied into the scratch.

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "arena/batch.h"
#include "arena/block_index.h"
#include "arena/bloom.h"

namespace flatbench::arena {

namespace {

constexpr size_t kView = SIZE_MAX;  // offsets_: the value is a view

}  // namespace

void BatchScratch::ReserveSlots(size_t n) {
  if (n <= slot_count_) return;
  const size_t count = std::max(n, slot_count_ * 2);
  char* p = static_cast<char*>(
      std::aligned_alloc(kBlockSize, count * ReadBuffer::kIoSize));
  if (p == nullptr) throw std::bad_alloc();
  slots_.reset(p);
  slot_count_ = count;
}

void BatchScratch::ReservePins(size_t n) {
  if (n <= pin_count_) return;
  const size_t count = std::max(n, pin_count_ * 2);
  pins_ = std::make_unique<BlockCache::Pin[]>(count);
  loads_ = std::make_unique<BlockCache::Load[]>(count);
  pin_count_ = count;
}

void BatchScratch::ResetGroups(size_t keys) {
  size_t size = 64;
  while (size < 2 * keys) size *= 2;
  if (size > table_.size()) {
    table_.assign(size, TableEntry{});
    generation_ = 0;
  }
  if (++generation_ == 0) {  // wrapped: every entry must look old
    std::fill(table_.begin(), table_.end(), TableEntry{});
    generation_ = 1;
  }
}

uint32_t* BatchScratch::GroupOf(uint32_t id) {
  // Fewer than half the entries are used, so a probe ends soon.
  const size_t mask = table_.size() - 1;
  size_t at = (static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ull) >> 32 & mask;
  while (table_[at].generation == generation_ && table_[at].id != id) {
    at = (at + 1) & mask;
  }
  TableEntry& e = table_[at];
  if (e.generation != generation_) {
    e.generation = generation_;
    e.id = id;
    e.group = kNoGroup;
  }
  return &e.group;
}

void Reader::PlanBatch(std::span<const std::string_view> keys,
                       std::span<GetResult> results, BatchScratch* b) const {
  // Every key's filter line is asked for before any is probed, so the
  // batch waits for their cache misses together rather than one by one.
  b->hashes_.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].size() != key_width_) continue;
    const Shard& s = shards_[static_cast<unsigned char>(keys[i][0])];
    b->hashes_[i] = FilterHash(keys[i]);
    if (s.filter_lines != 0) {
      __builtin_prefetch(BloomLine(b->hashes_[i], s.filter, s.filter_lines));
    }
  }
  // A group per distinct block, at most one a key; read i is group i's.
  b->ResetGroups(keys.size());
  b->ReserveSlots(keys.size());
  if (cache_ != nullptr) b->ReservePins(keys.size());
  b->reads_.resize(keys.size());
  b->io().Begin(b->reads_);
  b->asked_ = false;
  b->trend_ = 0;
  b->all_held_ = true;
  b->none_held_ = true;
  // Each key's block: the filter probe and the index search.
  b->blocks_.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    GetResult& r = results[i];
    r.status = Status::Ok();
    r.found = false;
    r.value = {};
    b->blocks_[i] = kNoBlock;
    const std::string_view key = keys[i];
    if (key.size() != key_width_) {
      r.status = Status::Usage("key of " + std::to_string(key.size()) +
                               " bytes; table key width is " +
                               std::to_string(key_width_));
      continue;
    }
    const Shard& s = shards_[static_cast<unsigned char>(key[0])];
    if (s.block_count == 0 ||
        (s.filter_lines != 0 &&
         !BloomMayMatch(b->hashes_[i], probes_, s.filter, s.filter_lines))) {
      continue;
    }
    const uint64_t prefix = KeyPrefix(key.data(), key_width_);
    const uint32_t block = FindBlock(s.prefixes, s.block_count, prefix);
    if (block == kNoBlock) continue;
    if (block > 0 && IndexWord(s.prefixes, block - 1) == prefix) {
      b->singles_.push_back(static_cast<uint32_t>(i));
      continue;
    }
    b->blocks_[i] = block;
  }
  // As Get does: each block's header, the key lines around the
  // interpolated position and its value end, asked for (a hint only). One
  // after another, with nothing between: a hint into a map of 4 KiB pages
  // can wait for its page walk, and back to back the walks overlap, where
  // between two index searches they were taken one at a time (warm storage
  // table, 3M x 4: about a fifth of a batch's samples waited on the first
  // hint).
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t block = b->blocks_[i];
    if (block == kNoBlock) continue;
    const int shard = static_cast<unsigned char>(keys[i][0]);
    const Shard& s = shards_[shard];
    PrefetchBlock(s, block, KeyPrefix(keys[i].data(), key_width_),
                  IndexWord(s.prefixes, block), PrefixEnd(shard, block));
  }
  // Group and place, key by key: a block the batch has not met yet is
  // placed at once, and its read (if it needs one) submitted, so the device
  // works while the rest of the batch is placed.
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t block = b->blocks_[i];
    if (block == kNoBlock) continue;
    const int shard = static_cast<unsigned char>(keys[i][0]);
    const uint32_t id = shards_[shard].first_block + block;
    uint32_t* group = b->GroupOf(id);
    if (*group == BatchScratch::kNoGroup) {
      *group = static_cast<uint32_t>(b->groups_.size());
      BatchScratch::Group& g = b->groups_.emplace_back();
      g.id = id;
      g.block = block;
      g.shard = static_cast<uint16_t>(shard);
      PlaceBlock(b, *group);
    }
    b->plan_.push_back({*group, static_cast<uint32_t>(i)});
  }
  if (b->asked_) {
    b->page_trend_ = b->all_held_ ? 1 : b->none_held_ ? -1 : 0;
  }
  // Each group's keys together, in the batch's order. Groups are numbered
  // as they are met, so a batch without two keys in one block is in that
  // order already.
  if (b->plan_.size() != b->groups_.size()) {
    std::sort(
        b->plan_.begin(), b->plan_.end(),
        [](const BatchScratch::Planned& x, const BatchScratch::Planned& y) {
          return x.group != y.group ? x.group < y.group : x.key < y.key;
        });
  }
  for (size_t i = 0; i < b->plan_.size();) {
    size_t end = i + 1;
    while (end < b->plan_.size() && b->plan_[end].group == b->plan_[i].group) {
      ++end;
    }
    BatchScratch::Group& g = b->groups_[b->plan_[i].group];
    g.first = static_cast<uint32_t>(i);
    g.end = static_cast<uint32_t>(end);
    i = end;
  }
}

// Whether the page cache holds a block is asked (cachestat) only while the
// answers vary. After a batch that found every block it asked of held (a
// warm file) or every one missing (a cold one), only the next batch's
// first block is asked, and when its answer is the same the others are
// taken to be the same: a batch then costs one check, not one a block. A
// block taken to be held but evicted meanwhile is read by its page fault
// (mmap), as Get reads it; one taken to be missing is read from the device
// (a buffered read copies it from the page cache if it is there after
// all; the cache path's O_DIRECT read reads it again).
bool Reader::Held(BatchScratch* b, uint64_t offset, uint64_t len) const {
  if (b->asked_ && b->trend_ != 0) return b->trend_ > 0;
  const bool h = BytesCached(offset, len);
  if (!b->asked_) {
    b->asked_ = true;
    if (b->page_trend_ > 0 && h) b->trend_ = 1;
    if (b->page_trend_ < 0 && !h) b->trend_ = -1;
  }
  b->all_held_ = b->all_held_ && h;
  b->none_held_ = b->none_held_ && !h;
  return h;
}

void Reader::PlaceBlock(BatchScratch* b, size_t gi) const {
  BatchScratch::Group& g = b->groups_[gi];
  g.status = LocateBlock(g.shard, g.block, &g.offset, &g.avail);
  if (!g.status.ok()) return;
  char* dst = b->Slot(gi);
  BlockRead read;
  read.fd = data_fd_;
  read.dst = dst;
  read.offset = g.offset;
  read.len = static_cast<uint32_t>(g.avail);
  switch (read_path_) {
    case ReadPath::kMmap: {
      // Pages the page cache holds are read through the map, as Get reads
      // them; without a descriptor, every block is.
      if (data_fd_ < 0 || Held(b, g.offset, g.avail)) {
        g.src = map_ + g.offset;
        g.from_map = true;
        return;
      }
      break;
    }
    case ReadPath::kPread:
      // A block in the page cache is copied from there by the read (no
      // device read); it rides with the others.
      break;
    case ReadPath::kDirect: {
      // O_DIRECT: whole aligned pages (FetchBlock's arithmetic).
      const uint64_t start = g.offset & ~uint64_t{kBlockSize - 1};
      read.offset = start;
      read.len = static_cast<uint32_t>((g.offset + g.avail + kBlockSize - 1) /
                                           kBlockSize * kBlockSize -
                                       start);
      g.src = dst + (g.offset - start);
      break;
    }
    case ReadPath::kCache: {
      if (cache_->Lookup(g.id, &b->pins_[gi])) {
        g.src = b->pins_[gi].data();
        g.cache_hit = true;
        return;
      }
      if (cache_->BeginLoad(g.id, &b->loads_[gi])) {
        dst = b->loads_[gi].data();
        read.dst = dst;
      }
      // LoadBlock's choice: O_DIRECT into the frame when the page cache
      // lacks the block, else a buffered copy from the page cache.
      if (direct_fd_ >= 0 && !Held(b, g.offset, kBlockSize)) {
        read.fd = direct_fd_;
        read.len = kBlockSize;
      }
      break;
    }
  }
  if (g.src == nullptr) g.src = dst;
  g.read = true;
  b->reads_[gi] = read;
  b->io().Submit(gi);
}

// Group gi's read against what its block needs: an error or a short read
// fails the block's keys. A direct read of the cache path that failed or
// came up short is done again buffered (LoadBlock's rule).
void Reader::FinishRead(BatchScratch* b, size_t gi) const {
  BatchScratch::Group& g = b->groups_[gi];
  BlockRead& r = b->reads_[gi];
  const uint64_t need = static_cast<uint64_t>(g.src - r.dst) + g.avail;
  if (r.fd == direct_fd_ && direct_fd_ >= 0 &&
      (r.result < 0 || static_cast<uint64_t>(r.result) < need)) {
    uint64_t done = 0;
    b->io().CountSyncRead();
    g.status = ReadAt(data_fd_, r.dst, g.avail, g.offset, &done);
    r.result = static_cast<int64_t>(done);
    if (!g.status.ok()) return;
  }
  if (r.result < 0) {
    errno = static_cast<int>(-r.result);
    g.status = Status::FromErrno("read at offset " + std::to_string(g.offset));
  } else if (static_cast<uint64_t>(r.result) < need) {
    g.status =
        Status::IOError("short read at offset " + std::to_string(g.offset));
  }
}

void Reader::AnswerGroup(std::span<const std::string_view> keys,
                         std::span<GetResult> results, BatchScratch* b,
                         size_t gi) const {
  BatchScratch::Group& g = b->groups_[gi];
  BlockContents c;
  if (g.status.ok()) {
    if (g.cache_hit) {
      // Checked when it entered the cache (FetchCached).
      g.status = DecodeBlock(g.src, g.avail, g.offset, key_width_, compressed_,
                             /*verify=*/false, b->buffer_.data(),
                             b->buffer_.dctx(), &c);
    } else if (cache_ != nullptr) {
      g.status = DecodeBlock(g.src, g.avail, g.offset, key_width_, compressed_,
                             verify_, b->buffer_.data(), b->buffer_.dctx(), &c);
      BlockCache::Load& load = b->loads_[gi];
      if (load.claimed()) {
        if (g.status.ok()) {
          load.Publish(&b->pins_[gi]);
        } else {
          load.Abandon();
        }
      }
    } else {
      g.status = DecodeRead(g.shard, g.block, g.src, g.avail, g.offset, verify_,
                            &b->buffer_, &c);
    }
  }
  if (!g.status.ok()) {
    if (cache_ != nullptr) b->loads_[gi].Abandon();
    const Status st = g.status.WithContext(name_);
    for (uint32_t k = g.first; k < g.end; ++k) {
      results[b->plan_[k].key].status = st;
    }
    return;
  }
  const Shard& s = shards_[g.shard];
  const uint64_t low = IndexWord(s.prefixes, g.block);
  const uint64_t high = PrefixEnd(g.shard, g.block);
  // The block's bytes stay put until the next batch: a value among them is
  // a view, any other (decompressed) is copied.
  const char* const begin = g.src;
  const char* const end = g.src + g.avail;
  for (uint32_t k = g.first; k < g.end; ++k) {
    const uint32_t key_index = b->plan_[k].key;
    const std::string_view key = keys[key_index];
    GetResult& r = results[key_index];
    const uint32_t i = c.LowerBoundBetween(key, low, high);
    if (i < c.count && std::memcmp(c.key_ptr(i), key.data(), key_width_) == 0) {
      std::string_view value;
      if (!c.Value(i, &value)) {
        r.status =
            Status::Corruption(name_ + ": bad value offset at offset " +
                               std::to_string(BlockOffset(g.shard, g.block)));
        continue;
      }
      r.found = true;
      if (value.data() >= begin && value.data() + value.size() <= end) {
        r.value = value;
      } else {
        b->offsets_[key_index] = b->values_.size();
        b->values_.append(value);
        r.value = std::string_view(nullptr, value.size());
      }
      continue;
    }
    // The key sorts before this block's first key, which starts with its
    // prefix: it may end the block before (Get's second round).
    const uint64_t prefix = KeyPrefix(key.data(), key_width_);
    if (i == 0 && g.block > 0 && low == prefix) {
      b->singles_.push_back(key_index);
    }
  }
}

void BatchScratch::Release() {
  for (size_t gi = 0; gi < groups_.size() && gi < pin_count_; ++gi) {
    pins_[gi].Release();
  }
  buffer_.Release();
}

void Reader::MultiGet(std::span<const std::string_view> keys,
                      std::span<GetResult> results, BatchScratch* b) const {
  b->Release();  // the last batch's values
  b->plan_.clear();
  b->groups_.clear();
  b->reads_.clear();
  b->singles_.clear();
  b->values_.clear();
  b->offsets_.assign(keys.size(), kView);
  PlanBatch(keys, results, b);
  // Blocks already in memory first, while the reads are in flight; then
  // each read block as it arrives.
  for (size_t gi = 0; gi < b->groups_.size(); ++gi) {
    if (b->groups_[gi].read) continue;
    b->buffer_.CountBlockRead();
    AnswerGroup(keys, results, b, gi);
  }
  for (size_t gi = 0; b->io().Next(&gi);) {
    FinishRead(b, gi);
    b->buffer_.CountBlockRead();
    AnswerGroup(keys, results, b, gi);
  }
  // Keys Get answers: its search of blocks that share a prefix, or the
  // block before the one planned. Rare with hash keys.
  for (const uint32_t i : b->singles_) {
    GetResult& r = results[i];
    std::string_view value;
    r.status = Get(keys[i], &r.found, &value, &b->buffer_);
    if (!r.status.ok()) {
      r.found = false;
    } else if (r.found) {
      b->offsets_[i] = b->values_.size();
      b->values_.append(value);
      r.value = std::string_view(nullptr, value.size());
    }
  }
  b->buffer_.Release();
  for (size_t i = 0; i < keys.size(); ++i) {
    if (results[i].found && b->offsets_[i] != kView) {
      results[i].value = std::string_view(b->values_.data() + b->offsets_[i],
                                          results[i].value.size());
    }
  }
  // The groups' pins stay: their frames hold this batch's values.
}

}  // namespace flatbench::arena
