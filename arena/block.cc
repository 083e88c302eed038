#include "arena/block.h"

#include <string>

namespace flatbench::arena {

// Keys are compared first on their 8-byte big-endian prefix (one load and
// one compare, which settles almost every step for hash keys) and only on a
// tie with memcmp of the rest. Hash keys are uniform inside a block too, so
// the search starts at an interpolated guess and gallops outward: about two
// or three key probes (cache lines) instead of log2(count).
uint32_t BlockContents::LowerBound(std::string_view target) const {
  if (count == 0) return 0;
  return LowerBoundBetween(target, KeyPrefix(key_ptr(0), key_width),
                           KeyPrefix(key_ptr(count - 1), key_width));
}

uint32_t BlockContents::LowerBoundBetween(std::string_view target, uint64_t low,
                                          uint64_t high) const {
  const uint64_t tp = KeyPrefix(target.data(), key_width);
  const size_t rest = key_width > 8 ? key_width - 8 : 0;
  auto less = [&](uint32_t i) {
    const char* k = key_ptr(i);
    const uint64_t kp = KeyPrefix(k, key_width);
    if (kp != tp) return kp < tp;
    return rest > 0 && std::memcmp(k + 8, target.data() + 8, rest) < 0;
  };
  // Invariant: keys before lo are < target; keys from hi on are >= target.
  uint32_t lo = 0;
  uint32_t hi = count;
  if (count > 4) {
    const uint32_t g = InterpolatedPosition(tp, low, high, count);
    // The guess's key and its value end are both needed on a hit; fetch
    // them together rather than one after the other.
    __builtin_prefetch(ends + 2 * size_t{g});
    uint32_t step = 1;
    if (less(g)) {
      lo = g + 1;
      while (g + step < count && less(g + step)) {
        lo = g + step + 1;
        step *= 2;
      }
      hi = g + step < count ? g + step : count;
    } else {
      hi = g;
      while (g >= step && !less(g - step)) {
        hi = g - step;
        step *= 2;
      }
      lo = g >= step ? g - step + 1 : 0;
    }
  }
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (less(mid)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

namespace {

// Built only on the failure path.
Status BlockError(const char* what, uint64_t offset) {
  return Status::Corruption(std::string(what) + " at offset " +
                            std::to_string(offset));
}

}  // namespace

Status DecodeBlock(const char* p, uint64_t avail, uint64_t offset,
                   uint32_t key_width, bool compressed_file, bool verify,
                   char* scratch, ZSTD_DCtx* dctx, BlockContents* out) {
  if (avail < kBlockHeaderSize) return BlockError("block truncated", offset);
  const BlockHeader h = ReadBlockHeader(p);
  if (h.stored_len < kBlockHeaderSize || h.stored_len > avail ||
      h.stored_len > kBlockSize) {
    return BlockError("bad block length", offset);
  }
  if (verify && Checksum(p + 8, h.stored_len - 8, offset) != h.checksum) {
    return BlockError("block checksum mismatch", offset);
  }
  const char* body = p + kBlockHeaderSize;
  const uint32_t body_len = h.stored_len - kBlockHeaderSize;
  if (h.kind == kBlockRaw) {
    if (h.raw_len != body_len) return BlockError("bad block length", offset);
  } else if (h.kind == kBlockZstd) {
    // FORMAT.md: only a file whose flags allow compression holds zstd
    // blocks. Its blocks sit 4 KiB apart with no offsets stored; a valid
    // frame with a valid checksum does not make the block part of it.
    if (!compressed_file) {
      return BlockError(
          "compressed block in a file whose flags do not allow "
          "compression",
          offset);
    }
    if (h.raw_len > kBlockPayload) {
      return BlockError("bad block length", offset);
    }
    if (scratch == nullptr || dctx == nullptr) {
      return Status::Usage("a compressed block needs a ReadBuffer");
    }
    const size_t n =
        ZSTD_decompressDCtx(dctx, scratch, kBlockPayload, body, body_len);
    if (ZSTD_isError(n) || n != h.raw_len) {
      return BlockError("block decompression failed", offset);
    }
    body = scratch;
  } else {
    return BlockError("unknown block kind", offset);
  }
  const uint64_t fixed = uint64_t{h.count} * (key_width + kValueEndSize);
  if (h.count == 0 || fixed > h.raw_len) {
    return BlockError("bad block entry count", offset);
  }
  out->keys = body;
  out->ends = body + size_t{h.count} * key_width;
  out->values = body + fixed;
  out->count = h.count;
  out->values_len = static_cast<uint32_t>(h.raw_len - fixed);
  out->key_width = key_width;
  return Status::Ok();
}

}  // namespace flatbench::arena
