// Lookups (opening and validation live in reader_open.cc and
// reader_directory.cc; the batch in reader_batch.cc; how a block's bytes
// arrive, in the block sources). Why each choice:
//
// - The reader never knows how a block's bytes reach it: it asks its read
//   path's block source (block_source.h), as LevelDB's table reader reads
//   through a RandomAccessFile. The default, mmap with zero-copy values,
//   makes a warm hit cost no syscall and no copy.
// - Open validates header, directory, index and filter through pread before
//   mapping, so a short or garbage file is an error, never a SIGBUS. Every
//   offset is checked as `len <= size && off <= size - len` (no overflow).
// - The index is one u64 per block (the first key's 8-byte big-endian
//   prefix), copied into one owned array: about 0.2 bytes per key for
//   100-byte entries. Raw blocks sit at data_offset + i * 4096, so no block
//   offsets are stored at all, and a hit reads exactly one data page.
// - Uniform hash keys make interpolation over the prefixes land within a
//   cache line or two (block_index.h), with a binary-search fallback.
// - Within a block, keys have a fixed stride: no offset table, one u64
//   compare per probe, and an interpolated start with a galloping search
//   (block.cc), about two or three key cache lines per lookup.
// - The bloom filter (one cache line) is probed before the index: an absent
//   key usually touches no data page at all.
// - A warm hit is a chain of cache misses (block header, key lines, value
//   end): once the filter passes, PrefetchBlock starts all of them, from
//   addresses interpolated before the block is read, so they overlap
//   instead of following one another.
// - Errors are built only on the failure path, so a successful Get
//   allocates nothing; its only virtual calls are to the block source, one
//   per block read and one for the prefetch hint; there are no locks; all
//   state is immutable after open, so readers share it freely.

#include "arena/reader.h"

#include <algorithm>
#include <cstring>

#include "arena/block_index.h"
#include "arena/bloom.h"
#include "common/rng.h"

namespace flatbench::arena {

uint64_t Reader::BlockPrefix(int shard, uint32_t block) const {
  return IndexWord(shards_[shard].prefixes, block);
}

uint64_t Reader::BlockOffset(int shard, uint32_t block) const {
  const Shard& s = shards_[shard];
  return s.data_offset + (compressed_ ? IndexWord(s.offsets, block)
                                      : uint64_t{block} * kBlockSize);
}

Status Reader::LocateBlock(int shard, uint32_t block, BlockAddress* at) const {
  const Shard& s = shards_[shard];
  uint64_t off;
  if (compressed_) {
    // Re-checked on every read: a lazily mapped index is not verified.
    off = IndexWord(s.offsets, block);
    const uint64_t end = IndexWord(s.offsets, block + 1);
    if (off >= end || end > s.data_bytes || end - off > kBlockSize) {
      return Status::Corruption("shard " + std::to_string(shard) +
                                ": bad block offset for block " +
                                std::to_string(block));
    }
    at->avail = end - off;
  } else {
    off = uint64_t{block} * kBlockSize;
    at->avail = std::min<uint64_t>(kBlockSize, s.data_bytes - off);
  }
  at->id = s.first_block + block;
  at->offset = s.data_offset + off;
  return Status::Ok();
}

Status Reader::ReadBlock(int shard, uint32_t block, bool verify,
                         ReadBuffer* buffer, BlockContents* out) const {
  return FetchBlock(shard, block, /*via_map=*/true, verify, buffer, out);
}

Status Reader::FetchBlock(int shard, uint32_t block, bool via_map, bool verify,
                          ReadBuffer* buffer, BlockContents* out,
                          BlockCache::Pin* pin) const {
  BlockAddress at;
  FLATBENCH_RETURN_IF_ERROR(LocateBlock(shard, block, &at));
  if (buffer != nullptr) buffer->CountBlockRead();
  if (via_map) {
    return DecodeAt(BlockFormat{key_width_, compressed_}, map_ + at.offset, at,
                    verify, buffer, out);
  }
  return source_->Fetch(at, verify, buffer, pin, out);
}

// A warm hit's time is a chain of cache misses: the filter line, the block's
// header, the key lines the search probes, the value's end. All their
// addresses are known, to within a few keys, once the block number is: the
// key's position is interpolated between the block's and the next block's
// first-key prefixes (as LowerBoundBetween will) over the shard's mean keys
// per block. Prefetching them all once the filter lets the key through
// lets these misses overlap instead of following one another (RESEARCH.md
// section 12 has the figures). Issued before the filter test, they slowed
// filter-rejected misses and gained hits nothing measurable, as the core
// runs ahead past the filter's well-predicted branch anyway. The window covers
// kPrefetchKeys keys either side of the guess: the search's first gallop
// steps (1, 2, 4), which cover the guess's usual error for hash keys (a few
// keys in a block of about 45). It is only a hint: nothing is read, a wrong
// guess costs wasted prefetches, and on the cache path the frame may change
// before it is pinned (BlockSource::Hint).
void Reader::PrefetchBlock(const Shard& s, uint32_t block, uint64_t prefix,
                           uint64_t low, uint64_t high) const {
  if (compressed_) return;  // a zstd block's keys are not where they sit
  // Null where the block is not in memory yet (pread, direct, a cache miss).
  const char* p = source_->Hint(s.first_block + block,
                                s.data_offset + uint64_t{block} * kBlockSize);
  if (p == nullptr) return;
  constexpr uint32_t kPrefetchKeys = 4;
  const uint32_t count = s.count_hint;
  const uint32_t g = InterpolatedPosition(prefix, low, high, count);
  __builtin_prefetch(p);
  const uint64_t first =
      kBlockHeaderSize +
      uint64_t{g >= kPrefetchKeys ? g - kPrefetchKeys : 0} * key_width_;
  const uint64_t last =
      kBlockHeaderSize +
      uint64_t{std::min(g + kPrefetchKeys, count - 1)} * key_width_;
  for (uint64_t at = first & ~uint64_t{63}; at <= last; at += 64) {
    __builtin_prefetch(p + at);
  }
  const uint64_t ends = kBlockHeaderSize + uint64_t{count} * key_width_;
  __builtin_prefetch(p + ends + uint64_t{g} * kValueEndSize);
}

uint64_t Reader::PrefixEnd(int shard, uint32_t block) const {
  const Shard& s = shards_[shard];
  if (block + 1 < s.block_count) return IndexWord(s.prefixes, block + 1);
  // Keys of the last block are bounded by the shard's last possible prefix.
  return (uint64_t{static_cast<unsigned>(shard)} << 56) | 0x00ffffffffffffffull;
}

bool Reader::FilterMayMatch(int shard, std::string_view key) const {
  const Shard& s = shards_[shard];
  if (s.filter_lines == 0) return true;
  return BloomMayMatch(FilterHash(key), probes_, s.filter, s.filter_lines);
}

// Blocks first..last all start with `prefix` (FORMAT.md, Lookup step 4):
// imported keys with a long common prefix can make this hundreds of blocks.
// Binary search on their first keys finds the last block whose first key is
// <= `key` in about log2(last - first + 1) block reads; when none is, the
// answer is the block before the run (or none).
Status Reader::SearchTiedBlocks(int shard, std::string_view key,
                                uint64_t prefix, uint32_t last, bool via_map,
                                ReadBuffer* buffer, uint32_t* block) const {
  const Shard& s = shards_[shard];
  const uint32_t first = FirstBlockAtLeast(s.prefixes, last + 1, prefix);
  // Invariant: blocks in [first, lo) start <= key; blocks in [hi, last] > key.
  uint32_t lo = first;
  uint32_t hi = last + 1;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    BlockContents c;
    BlockCache::Pin pin;
    Status st = FetchBlock(shard, mid, via_map, verify_, buffer, &c, &pin);
    if (!st.ok()) return st;
    if (std::memcmp(c.key_ptr(0), key.data(), key_width_) <= 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *block = lo == 0 ? kNoBlock : lo - 1;
  return Status::Ok();
}

Status Reader::SeekBlock(int shard, std::string_view key, ReadBuffer* buffer,
                         uint32_t* block) const {
  const Shard& s = shards_[shard];
  const uint64_t prefix = KeyPrefix(key.data(), key_width_);
  *block = FindBlock(s.prefixes, s.block_count, prefix);
  if (*block == kNoBlock || IndexWord(s.prefixes, *block) != prefix) {
    return Status::Ok();  // every earlier block starts below the key
  }
  Status st = SearchTiedBlocks(shard, key, prefix, *block, /*via_map=*/true,
                               buffer, block);
  return st.WithContext(name_);
}

Status Reader::Get(std::string_view key, bool* found, std::string_view* value,
                   ReadBuffer* buffer) const {
  *found = false;
  if (key.size() != key_width_) {
    return Status::Usage("key of " + std::to_string(key.size()) +
                         " bytes; table key width is " +
                         std::to_string(key_width_));
  }
  const int shard = static_cast<unsigned char>(key[0]);
  const Shard& s = shards_[shard];
  if (s.block_count == 0) return Status::Ok();
  // Start the filter line's load, search the index while it arrives, and
  // only then test it: the two cache misses overlap, and a rejected key
  // still touches no data page.
  const char* filter_line = nullptr;
  uint64_t hash = 0;
  if (s.filter_lines != 0) {
    hash = FilterHash(key);
    filter_line = BloomLine(hash, s.filter, s.filter_lines);
    __builtin_prefetch(filter_line);
  }
  const uint64_t prefix = KeyPrefix(key.data(), key_width_);
  uint32_t block = FindBlock(s.prefixes, s.block_count, prefix);
  if (filter_line != nullptr &&
      !BloomLineMayMatch(hash, probes_, filter_line)) {
    return Status::Ok();
  }
  if (block == kNoBlock) return Status::Ok();
  PrefetchBlock(s, block, prefix, IndexWord(s.prefixes, block),
                PrefixEnd(shard, block));
  if (buffer == nullptr && NeedsBuffer()) {
    return Status::Usage(name_ + ": this arena's reads need a ReadBuffer");
  }
  if (block > 0 && IndexWord(s.prefixes, block - 1) == prefix) {
    // Several blocks start with the key's prefix: search their first keys
    // rather than walk back one block at a time.
    Status st = SearchTiedBlocks(shard, key, prefix, block, /*via_map=*/false,
                                 buffer, &block);
    if (!st.ok()) return st.WithContext(name_);
    if (block == kNoBlock) return Status::Ok();
  }
  // At most two rounds: the block found, and (when the key sorts before its
  // first key and the block starts with the key's prefix) the one before,
  // which then starts with a smaller prefix.
  // The cache path keeps the block that holds the value pinned in `buffer`
  // (reader.h, "Lifetime"): no copy, and the frame stays put until the next
  // Get with it.
  BlockCache::Pin unused;
  BlockCache::Pin* pin = buffer != nullptr ? buffer->pin() : &unused;
  for (;;) {
    BlockContents c;
    Status st =
        FetchBlock(shard, block, /*via_map=*/false, verify_, buffer, &c, pin);
    if (!st.ok()) return st.WithContext(name_);
    const uint64_t low = IndexWord(s.prefixes, block);
    const uint32_t i = c.LowerBoundBetween(key, low, PrefixEnd(shard, block));
    const bool equal =
        i < c.count && std::memcmp(c.key_ptr(i), key.data(), key_width_) == 0;
    if (equal) {
      if (!c.Value(i, value)) {
        return Status::Corruption(name_ + ": bad value offset at offset " +
                                  std::to_string(BlockOffset(shard, block)));
      }
      *found = true;
      return Status::Ok();
    }
    // The key sorts before this block's first key: keys with its prefix may
    // end the previous block.
    if (i == 0 && block > 0 && low == prefix &&
        IndexWord(s.prefixes, block - 1) != prefix) {
      --block;
      continue;
    }
    return Status::Ok();
  }
}

double Reader::MeasureFalsePositiveRate(uint64_t probes, uint64_t seed) const {
  if (probes_ == 0) return 1.0;
  std::string key(key_width_, '\0');
  std::unique_ptr<ReadBuffer> buffer;
  if (NeedsBuffer()) buffer = std::make_unique<ReadBuffer>();
  // Every probe lands in a non-empty shard, chosen uniformly among them
  // (as the expected rate averages them): a file with one non-empty shard
  // is probed `probes` times, not probes / 256.
  std::vector<unsigned char> nonempty;
  for (size_t i = 0; i < kNumShards; ++i) {
    if (shards_[i].block_count != 0) {
      nonempty.push_back(static_cast<unsigned char>(i));
    }
  }
  if (nonempty.empty()) return 0.0;
  SplitMix64 rng(seed);
  uint64_t absent = 0;
  uint64_t passed = 0;
  for (uint64_t n = 0; n < probes; ++n) {
    for (size_t i = 0; i < key.size(); i += 8) {
      const uint64_t r = rng.Next();
      std::memcpy(key.data() + i, &r, std::min<size_t>(8, key.size() - i));
    }
    key[0] = static_cast<char>(nonempty[rng.Next() % nonempty.size()]);
    const int shard = static_cast<unsigned char>(key[0]);
    bool found = false;
    std::string_view v;
    if (!Get(key, &found, &v, buffer.get()).ok() || found) continue;
    ++absent;
    if (FilterMayMatch(shard, key)) ++passed;
  }
  return absent == 0 ? 0.0 : static_cast<double>(passed) / absent;
}

}  // namespace flatbench::arena
