#include "arena/bloom.h"

#include <algorithm>
#include <cmath>

namespace flatbench::arena {

uint32_t BloomProbes(uint32_t bits_per_key) {
  if (bits_per_key == 0) return 0;
  const auto k = static_cast<uint32_t>(std::lround(bits_per_key * 0.69314718));
  return std::clamp<uint32_t>(k, 1, kMaxBloomProbes);
}

uint64_t BloomLines(uint64_t keys, uint32_t bits_per_key) {
  if (keys == 0 || bits_per_key == 0) return 0;
  return (keys * bits_per_key + kFilterLineBits - 1) / kFilterLineBits;
}

void BloomAdd(uint64_t hash, uint32_t probes, char* lines, uint64_t num_lines) {
  const uint64_t line = ((hash >> 32) * num_lines) >> 32;
  unsigned char* p =
      reinterpret_cast<unsigned char*>(lines) + line * kFilterLineBytes;
  uint32_t h = static_cast<uint32_t>(hash);
  for (uint32_t i = 0; i < probes; ++i) {
    const uint32_t bit = h >> 23;
    p[bit >> 3] = static_cast<unsigned char>(p[bit >> 3] | (1u << (bit & 7)));
    h *= 0x9e3779b9u;
  }
}

// Keys per line are ~Poisson(lambda = keys / lines). A line holding j keys
// has each bit still clear with probability (1 - 1/512)^(probes * j); an
// absent key matches when all its probes hit set bits. Summing over j gives
// the expected rate for a uniform hash.
double BloomExpectedFpRate(uint64_t keys, uint64_t num_lines, uint32_t probes) {
  if (num_lines == 0) return 1.0;
  if (keys == 0) return 0.0;
  const double lambda = static_cast<double>(keys) / num_lines;
  const double clear_per_probe = 1.0 - 1.0 / kFilterLineBits;
  const int max_j = static_cast<int>(lambda + 12 * std::sqrt(lambda) + 50);
  double pj = std::exp(-lambda);  // Poisson(0)
  double rate = 0;
  for (int j = 0; j <= max_j; ++j) {
    if (j > 0) pj *= lambda / j;
    const double set = 1.0 - std::pow(clear_per_probe, double(probes) * j);
    rate += pj * std::pow(set, probes);
  }
  return rate;
}

}  // namespace flatbench::arena
