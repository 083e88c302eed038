#pragma once
// Finding a key's block in a shard's block index (FORMAT.md, "Lookup").
//
// The index is the ascending array of each block's first-key prefix (the
// first 8 key bytes as a big-endian integer). Keys are uniform hashes, so
// interpolation lands within about sqrt(n) entries of the answer; a probe
// that far ahead or behind brackets it, a second round lands within a cache
// line or two, and a short scan finishes. Skewed data is bounded by falling
// back to binary search after a few rounds.

#include <bit>
#include <cstdint>

#include "arena/format.h"

namespace flatbench::arena {

inline constexpr uint32_t kNoBlock = UINT32_MAX;

// Word i of an index (a prefix, or a block offset): a u64 at byte 8 i,
// loaded with memcpy because a lazily used index is read in place from the
// map, where no alignment is promised.
inline uint64_t IndexWord(const char* index, uint32_t i) {
  return LoadU64(index + 8 * size_t{i});
}

// The first block in [0, n) whose prefix is >= `prefix` (n if none): where a
// run of blocks sharing one prefix begins. Binary search.
inline uint32_t FirstBlockAtLeast(const char* index, uint32_t n,
                                  uint64_t prefix) {
  uint32_t lo = 0;
  uint32_t hi = n;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (IndexWord(index, mid) < prefix) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Returns the last block whose prefix is <= `prefix`, or kNoBlock when
// `prefix` sorts before block 0. `index` holds `n` u64 prefixes that must be
// non-decreasing (a corrupt index yields a wrong block, never an
// out-of-range one).
inline uint32_t FindBlock(const char* index, uint32_t n, uint64_t prefix) {
  auto prefixes = [index](uint32_t i) { return IndexWord(index, i); };
  if (n == 0 || prefix < prefixes(0)) return kNoBlock;
  if (prefix >= prefixes(n - 1)) return n - 1;
  // Invariant: prefixes(lo) <= prefix < prefixes(hi).
  uint32_t lo = 0;
  uint32_t hi = n - 1;
  for (int round = 0; round < 4 && hi - lo > 8; ++round) {
    const uint64_t span = prefixes(hi) - prefixes(lo);
    const uint64_t into = prefix - prefixes(lo);
    if (span == 0) break;  // only possible in a corrupt index
    // Double arithmetic: a divsd instead of a 128-bit division call; the
    // guess only steers the search, so rounding cannot break it.
    uint32_t guess =
        lo + static_cast<uint32_t>(static_cast<double>(into) /
                                   static_cast<double>(span) * (hi - lo));
    if (guess <= lo) guess = lo + 1;
    if (guess >= hi) guess = hi - 1;
    // Expected error of the guess is about sqrt(hi - lo) entries.
    const uint32_t step = uint32_t{1} << (std::bit_width(hi - lo) / 2);
    if (prefixes(guess) <= prefix) {
      lo = guess;
      if (hi - lo > step) {
        if (prefixes(lo + step) <= prefix) {
          lo += step;
        } else {
          hi = lo + step;
        }
      }
    } else {
      hi = guess;
      if (hi - lo > step) {
        if (prefixes(hi - step) <= prefix) {
          lo = hi - step;
        } else {
          hi -= step;
        }
      }
    }
  }
  while (hi - lo > 1) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (prefixes(mid) <= prefix) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace flatbench::arena
