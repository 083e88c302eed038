// The read path (opening and validation live in reader_open.cc). Why each
// choice:
//
// - mmap + zero-copy values: a warm hit costs no syscall and no copy; the
//   value view points into the page cache. MADV_RANDOM stops the kernel from
//   reading ahead around each 4 KiB block on cold reads.
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
// - Errors are built only on the failure path, so a successful Get
//   allocates nothing; there are no virtual calls and no locks; all state is
//   immutable after open, so readers share it freely.

#include "arena/reader.h"

#include <algorithm>
#include <cstring>

#include "arena/block_index.h"
#include "arena/bloom.h"

namespace flatbench::arena {
namespace {

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

ReadBuffer::ReadBuffer() : dctx_(ZSTD_createDCtx()) {}
ReadBuffer::~ReadBuffer() { ZSTD_freeDCtx(dctx_); }

uint64_t Reader::BlockOffset(int shard, uint32_t block) const {
  const Shard& s = shards_[shard];
  return s.data_offset +
         (compressed_ ? s.offsets[block] : uint64_t{block} * kBlockSize);
}

const char* Reader::ReadBlock(int shard, uint32_t block, bool verify,
                              ReadBuffer* buffer, BlockContents* out) const {
  const Shard& s = shards_[shard];
  uint64_t off;
  uint64_t avail;
  if (compressed_) {
    // Re-checked on every read: a lazily mapped index is not verified.
    off = s.offsets[block];
    const uint64_t end = s.offsets[block + 1];
    if (off >= end || end > s.data_bytes || end - off > kBlockSize) {
      return "bad block offset";
    }
    avail = end - off;
  } else {
    off = uint64_t{block} * kBlockSize;
    avail = std::min<uint64_t>(kBlockSize, s.data_bytes - off);
  }
  return DecodeBlock(s.data + off, avail, s.data_offset + off, key_width_,
                     verify, buffer != nullptr ? buffer->data() : nullptr,
                     buffer != nullptr ? buffer->dctx() : nullptr, out);
}

Status Reader::BlockError(int shard, uint32_t block, const char* what) const {
  return Status::Corruption(name_ + ": " + what + " at offset " +
                            std::to_string(BlockOffset(shard, block)));
}

bool Reader::FilterMayMatch(int shard, std::string_view key) const {
  const Shard& s = shards_[shard];
  if (s.filter_lines == 0) return true;
  return BloomMayMatch(FilterHash(key), probes_, s.filter, s.filter_lines);
}

bool Reader::MayContain(std::string_view key) const {
  if (key.size() != key_width_) return false;
  const int shard = static_cast<unsigned char>(key[0]);
  return shards_[shard].block_count > 0 && FilterMayMatch(shard, key);
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
  if (compressed_ && buffer == nullptr) {
    return Status::Usage("a compressed arena needs a ReadBuffer");
  }
  // Keys of the last block are bounded by the shard's last possible prefix.
  const uint64_t shard_end =
      (uint64_t{static_cast<unsigned>(shard)} << 56) | 0x00ffffffffffffffull;
  for (;;) {
    BlockContents c;
    if (const char* err = ReadBlock(shard, block, verify_, buffer, &c)) {
      return BlockError(shard, block, err);
    }
    const uint64_t high =
        block + 1 < s.block_count ? s.prefixes[block + 1] : shard_end;
    const uint32_t i = c.LowerBoundBetween(key, s.prefixes[block], high);
    const bool equal =
        i < c.count && std::memcmp(c.key_ptr(i), key.data(), key_width_) == 0;
    if (equal) {
      if (!c.Value(i, value))
        return BlockError(shard, block, "bad value offset");
      *found = true;
      return Status::Ok();
    }
    // The key sorts before this block's first key: only possible when
    // earlier blocks start with the same 8-byte prefix.
    if (i == 0 && block > 0 && s.prefixes[block] == prefix) {
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
  if (compressed_) buffer = std::make_unique<ReadBuffer>();
  uint64_t state = seed;
  uint64_t absent = 0;
  uint64_t passed = 0;
  for (uint64_t n = 0; n < probes; ++n) {
    for (size_t i = 0; i < key.size(); i += 8) {
      const uint64_t r = SplitMix64(&state);
      std::memcpy(key.data() + i, &r, std::min<size_t>(8, key.size() - i));
    }
    const int shard = static_cast<unsigned char>(key[0]);
    if (shards_[shard].block_count == 0) continue;
    bool found = false;
    std::string_view v;
    if (!Get(key, &found, &v, buffer.get()).ok() || found) continue;
    ++absent;
    if (FilterMayMatch(shard, key)) ++passed;
  }
  return absent == 0 ? 0.0 : static_cast<double>(passed) / absent;
}

}  // namespace flatbench::arena
