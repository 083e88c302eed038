#pragma once
// A seeded SplitMix64 with explicit range mapping, the one generator of the
// project: dataset values, sampled keys, device offsets, bootstrap draws and
// test data. Hand-written on purpose: std::*_distribution differs across
// standard libraries, and every byte of a dataset must be reproducible from
// its seed anywhere.

#include <cstdint>

namespace flatbench {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) by multiply-shift (Lemire); bias below 2^-64 * n.
  // REQUIRES: n > 0.
  uint64_t Below(uint64_t n) {
    __extension__ using U128 = unsigned __int128;
    return static_cast<uint64_t>((static_cast<U128>(Next()) * n) >> 64);
  }

 private:
  uint64_t state_;
};

}  // namespace flatbench
