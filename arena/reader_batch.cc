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
// 4. Place, as a group is made: the read path's block source finds the
//    block in memory (a page the page cache holds, through the map; a
//    cached frame, pinned) or describes the read that brings it (into a
//    frame claimed in the block cache, so the batch warms the cache as Get
//    does, else into one of the session's page-aligned slots; O_DIRECT
//    where the path uses it). The read is submitted at once (BatchIo:
//    io_uring, or a pread), so the device works while the rest of the batch
//    is placed.
// 5. Decode: the blocks already in memory while the reads are in flight,
//    then each read block as its completion arrives, completed by its
//    source exactly as Get's fetch decodes and checks it. A block that
//    fails fails only its own keys.
//
// Values are views into the bytes of their block where these stay put
// until the scratch's next batch: the map, a cached frame (pinned until
// then; BatchScratch::Release), or the group's own slot. A value that lives
// elsewhere (a decompressed block, reused by the next group, or a key Get
// answers) is copied into the scratch.

#include <cerrno>
#include <cstring>
#include <utility>

#include "arena/batch.h"
#include "arena/block_index.h"
#include "arena/bloom.h"
#include "arena/reader.h"

namespace flatbench::arena {
namespace {

// Group gi's read against what its block needs: an error or a short read
// fails the block's keys. A read its source marked for a retry (an O_DIRECT
// load of the cache path) that failed or came up short is done again
// buffered first.
Status FinishRead(BatchScratch* b, size_t gi) {
  BatchGroup& g = b->group(gi);
  BlockRead& r = *g.slot.read;
  const uint64_t need = static_cast<uint64_t>(g.slot.src - r.dst) + g.at.avail;
  if (g.slot.retry_fd >= 0 &&
      (r.result < 0 || static_cast<uint64_t>(r.result) < need)) {
    uint64_t done = 0;
    b->io().CountSyncRead();
    FLATBENCH_RETURN_IF_ERROR(
        ReadAt(g.slot.retry_fd, r.dst, g.at.avail, g.at.offset, &done));
    r.result = static_cast<int64_t>(done);
  }
  if (r.result < 0) {
    errno = static_cast<int>(-r.result);
    return Status::FromErrno("read at offset " + std::to_string(g.at.offset));
  }
  if (static_cast<uint64_t>(r.result) < need) {
    return Status::IOError("short read at offset " +
                           std::to_string(g.at.offset));
  }
  return Status::Ok();
}

}  // namespace

void Reader::PlanKeys(std::span<const std::string_view> keys,
                      std::span<GetResult> results, BatchScratch* b) const {
  // Every key's filter line is asked for before any is probed, so the
  // batch waits for their cache misses together rather than one by one.
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i].size() != key_width_) continue;
    const Shard& s = shards_[static_cast<unsigned char>(keys[i][0])];
    b->hash(i) = FilterHash(keys[i]);
    if (s.filter_lines != 0) {
      __builtin_prefetch(BloomLine(b->hash(i), s.filter, s.filter_lines));
    }
  }
  // Each key's block: the filter probe and the index search.
  for (size_t i = 0; i < keys.size(); ++i) {
    GetResult& r = results[i];
    r.status = Status::Ok();
    r.found = false;
    r.value = {};
    b->block(i) = kNoBlock;
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
         !BloomMayMatch(b->hash(i), probes_, s.filter, s.filter_lines))) {
      continue;
    }
    const uint64_t prefix = KeyPrefix(key.data(), key_width_);
    const uint32_t block = FindBlock(s.prefixes, s.block_count, prefix);
    if (block == kNoBlock) continue;
    if (block > 0 && IndexWord(s.prefixes, block - 1) == prefix) {
      b->LeaveToGet(static_cast<uint32_t>(i));
      continue;
    }
    b->block(i) = block;
  }
}

// As Get does: each block's header, the key lines around the interpolated
// position and its value end, asked for (a hint only). One after another,
// with nothing between: a hint into a map of 4 KiB pages can wait for its
// page walk, and back to back the walks overlap, where between two index
// searches they were taken one at a time (RESEARCH.md section 8b, "How the
// arena plans and submits a batch").
void Reader::HintBlocks(std::span<const std::string_view> keys,
                        BatchScratch* b) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t block = b->block(i);
    if (block == kNoBlock) continue;
    const int shard = static_cast<unsigned char>(keys[i][0]);
    const Shard& s = shards_[shard];
    PrefetchBlock(s, block, KeyPrefix(keys[i].data(), key_width_),
                  IndexWord(s.prefixes, block), PrefixEnd(shard, block));
  }
}

// Group and place, key by key: a block the batch has not met yet is placed
// at once, and its read (if it needs one) submitted, so the device works
// while the rest of the batch is placed.
void Reader::PlaceBlocks(std::span<const std::string_view> keys,
                         BatchScratch* b) const {
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t block = b->block(i);
    if (block == kNoBlock) continue;
    const int shard = static_cast<unsigned char>(keys[i][0]);
    bool made = false;
    const size_t gi = b->AddToGroup(shards_[shard].first_block + block,
                                    static_cast<uint32_t>(i), &made);
    if (!made) continue;
    BatchGroup& g = b->group(gi);
    g.block = block;
    g.shard = static_cast<uint16_t>(shard);
    g.status = LocateBlock(shard, block, &g.at);
    if (!g.status.ok()) continue;
    g.read = source_->Place(g.at, &g.slot);
    if (g.read) b->Submit(gi);
  }
  b->SealGroups();
}

// Blocks already in memory first, while the reads are in flight; then each
// read block as it arrives.
void Reader::AnswerBlocks(std::span<const std::string_view> keys,
                          std::span<GetResult> results, BatchScratch* b) const {
  for (size_t gi = 0; gi < b->group_count(); ++gi) {
    if (b->group(gi).read) continue;
    b->buffer().CountBlockRead();
    AnswerGroup(keys, results, b, gi, Status::Ok());
  }
  for (size_t gi = 0; b->NextRead(&gi);) {
    Status read = FinishRead(b, gi);
    b->buffer().CountBlockRead();
    AnswerGroup(keys, results, b, gi, std::move(read));
  }
}

void Reader::AnswerGroup(std::span<const std::string_view> keys,
                         std::span<GetResult> results, BatchScratch* b,
                         size_t gi, Status read) const {
  BatchGroup& g = b->group(gi);
  BlockContents c;
  // A group whose block could not be located was never placed.
  if (g.status.ok()) {
    g.status = source_->Complete(g.at, std::move(read), verify_, &g.slot,
                                 &b->buffer(), &c);
  }
  if (!g.status.ok()) {
    const Status st = g.status.WithContext(name_);
    for (const PlannedKey& p : b->KeysOf(gi)) results[p.key].status = st;
    return;
  }
  const uint64_t low = IndexWord(shards_[g.shard].prefixes, g.block);
  const uint64_t high = PrefixEnd(g.shard, g.block);
  // The block's bytes stay put until the next batch: a value among them is
  // a view, any other (decompressed) is copied.
  const char* const begin = g.slot.src;
  const char* const end = g.slot.src + g.at.avail;
  for (const PlannedKey& p : b->KeysOf(gi)) {
    const std::string_view key = keys[p.key];
    GetResult& r = results[p.key];
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
        b->CopyValue(p.key, value, &r);
      }
      continue;
    }
    // The key sorts before this block's first key, which starts with its
    // prefix: it may end the block before (Get's second round).
    const uint64_t prefix = KeyPrefix(key.data(), key_width_);
    if (i == 0 && g.block > 0 && low == prefix) b->LeaveToGet(p.key);
  }
}

// Keys Get answers: its search of blocks that share a prefix, or the block
// before the one planned. Rare with hash keys.
void Reader::AnswerLeftToGet(std::span<const std::string_view> keys,
                             std::span<GetResult> results,
                             BatchScratch* b) const {
  for (const uint32_t i : b->LeftToGet()) {
    GetResult& r = results[i];
    std::string_view value;
    r.status = Get(keys[i], &r.found, &value, &b->buffer());
    if (!r.status.ok()) {
      r.found = false;
    } else if (r.found) {
      b->CopyValue(i, value, &r);
    }
  }
  b->buffer().Release();
}

void Reader::MultiGet(std::span<const std::string_view> keys,
                      std::span<GetResult> results, BatchScratch* b) const {
  b->Begin(keys.size());
  PlanKeys(keys, results, b);
  HintBlocks(keys, b);
  PlaceBlocks(keys, b);
  AnswerBlocks(keys, results, b);
  AnswerLeftToGet(keys, results, b);
  b->ResolveValues(results);
  // The groups' pins stay: their frames hold this batch's values.
}

}  // namespace flatbench::arena
