#pragma once
// The per-shard, cache-line-blocked bloom filter (FORMAT.md, "Filter").
//
// A key's XXH3-64 hash picks one 64-byte line with its high 32 bits; its low
// 32 bits drive `probes` bit positions inside that line, so a query touches
// exactly one cache line.

#include <cstdint>
#include <string_view>
#include <vector>

#include "arena/format.h"

namespace flatbench::arena {

// Hash of a key as the filter uses it.
inline uint64_t FilterHash(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

// Number of probes for a bits-per-key setting: round(bits * ln 2), clamped
// to [1, kMaxBloomProbes]; 0 when bits_per_key is 0.
uint32_t BloomProbes(uint32_t bits_per_key);

// Number of 64-byte lines for `keys` keys: ceil(keys * bits / 512), 0 when
// either is 0.
uint64_t BloomLines(uint64_t keys, uint32_t bits_per_key);

// Sets the bits of `hash` in `lines` (num_lines * 64 bytes).
void BloomAdd(uint64_t hash, uint32_t probes, char* lines, uint64_t num_lines);

// The line of `hash` in a filter of `num_lines` lines.
inline const char* BloomLine(uint64_t hash, const char* lines,
                             uint64_t num_lines) {
  return lines + (((hash >> 32) * num_lines) >> 32) * kFilterLineBytes;
}

// False only when the key of `hash` is certainly absent; `line` is
// BloomLine(hash, ...).
inline bool BloomLineMayMatch(uint64_t hash, uint32_t probes,
                              const char* line) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(line);
  uint32_t h = static_cast<uint32_t>(hash);
  for (uint32_t i = 0; i < probes; ++i) {
    const uint32_t bit = h >> 23;  // top 9 bits: 0..511
    if ((p[bit >> 3] & (1u << (bit & 7))) == 0) return false;
    h *= 0x9e3779b9u;
  }
  return true;
}

// False only when the key is certainly absent. REQUIRES: num_lines > 0.
inline bool BloomMayMatch(uint64_t hash, uint32_t probes, const char* lines,
                          uint64_t num_lines) {
  return BloomLineMayMatch(hash, probes, BloomLine(hash, lines, num_lines));
}

// Expected false-positive rate of a filter of `num_lines` lines holding
// `keys` keys with `probes` probes (FORMAT.md gives the formula).
double BloomExpectedFpRate(uint64_t keys, uint64_t num_lines, uint32_t probes);

}  // namespace flatbench::arena
