#pragma once
// Decoding and searching one data block (FORMAT.md, "Data blocks").
//
// A block body is `count` fixed-width keys, then `count` u16 value-end
// offsets, then the values back to back. Decoders take (pointer, limit),
// never read past the limit, and report malformed input as kCorruption.

#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <string_view>

#include "arena/format.h"
#include "common/status.h"

namespace flatbench::arena {

// Where a key with 8-byte prefix `prefix` sits among `count` keys whose
// prefixes run from `low` to `high`, interpolated (hash keys are uniform)
// and clamped to [0, count - 1]; the search's start (LowerBoundBetween) and
// the reader's prefetch window (Reader::PrefetchBlock) share it.
// REQUIRES: count >= 1.
inline uint32_t InterpolatedPosition(uint64_t prefix, uint64_t low,
                                     uint64_t high, uint32_t count) {
  if (prefix >= high) return count - 1;
  if (prefix <= low) return 0;
  const auto g = static_cast<uint32_t>(static_cast<double>(prefix - low) /
                                       static_cast<double>(high - low) * count);
  return g >= count ? count - 1 : g;
}

// The decoded body of one block; views into the map or a scratch buffer.
struct BlockContents {
  const char* keys = nullptr;
  const char* ends = nullptr;
  const char* values = nullptr;
  uint32_t count = 0;
  uint32_t values_len = 0;
  uint32_t key_width = 0;

  const char* key_ptr(uint32_t i) const { return keys + size_t{i} * key_width; }
  std::string_view key(uint32_t i) const { return {key_ptr(i), key_width}; }
  // Sets *out to value i. Returns false when its offsets are out of range.
  bool Value(uint32_t i, std::string_view* out) const {
    const uint32_t begin = i == 0 ? 0 : LoadU16(ends + 2 * size_t{i - 1});
    const uint32_t end = LoadU16(ends + 2 * size_t{i});
    if (begin > end || end > values_len) return false;
    *out = std::string_view(values + begin, end - begin);
    return true;
  }
  // Index of the first key >= `target` (count if none).
  // REQUIRES: target.size() == key_width.
  uint32_t LowerBound(std::string_view target) const;
  // As LowerBound, starting from a guess interpolated between `low` and
  // `high`, prefix bounds of the block's keys known without reading it (the
  // block's and the next block's index entries). Wrong bounds cost probes,
  // never correctness.
  uint32_t LowerBoundBetween(std::string_view target, uint64_t low,
                             uint64_t high) const;
};

// Header fields of a block (its first kBlockHeaderSize bytes).
struct BlockHeader {
  uint64_t checksum = 0;
  uint32_t count = 0;
  uint32_t kind = 0;
  uint32_t stored_len = 0;
  uint32_t raw_len = 0;
};

inline BlockHeader ReadBlockHeader(const char* p) {
  BlockHeader h;
  h.checksum = LoadU64(p);
  h.count = LoadU16(p + 8);
  h.kind = static_cast<unsigned char>(p[10]);
  h.stored_len = LoadU16(p + 12);
  h.raw_len = LoadU16(p + 14);
  return h;
}

// Decodes the block starting at `p`, of which `avail` bytes are readable,
// located at file offset `offset`, of a file whose flags allow zstd blocks
// when `compressed_file`. Checks the checksum when `verify`. A zstd block is
// decompressed into `scratch` (kBlockPayload bytes) with `dctx`. Errors:
// kCorruption "WHAT at offset N" (e.g. "block checksum mismatch at offset
// 8192"), a zstd block in a file that is not `compressed_file` among them,
// checksum or not; kUsage for a zstd block of a compressed file without
// scratch. Success allocates nothing.
Status DecodeBlock(const char* p, uint64_t avail, uint64_t offset,
                   uint32_t key_width, bool compressed_file, bool verify,
                   char* scratch, ZSTD_DCtx* dctx, BlockContents* out);

}  // namespace flatbench::arena
