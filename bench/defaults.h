#pragma once
// The bench's defaults, defined once: `flatbench bench` and `gonogo` show
// them in --help and use them when a flag is left out, and the worker and
// the run context use the same eviction and residency bounds.

#include <array>
#include <cstdint>
#include <string_view>

namespace flatbench::bench {

// Thread counts of the matrix (--threads).
inline constexpr std::array<int, 3> kDefaultThreads = {1, 8, 32};
// Reads per measured pass, over all threads (--reads), above smoke scale.
inline constexpr uint64_t kDefaultReadsPerPass = 20'000;
// At tiny and smoke scale, which exist for the shape of the report and
// never give a verdict: a quarter, so the whole matrix runs in minutes.
inline constexpr uint64_t kSmallScaleReadsPerPass = 5'000;
inline uint64_t DefaultReadsPerPass(std::string_view scale) {
  return scale == "tiny" || scale == "smoke" ? kSmallScaleReadsPerPass
                                             : kDefaultReadsPerPass;
}
// A cold pass counts as evicted at most this fraction of its files' pages
// resident (mincore), a warm pass as warm at least kWarmBound.
inline constexpr double kEvictionBound = 0.01;
inline constexpr double kWarmBound = 0.99;

// Passes per cell when --repetitions is left out: 3 at tiny and smoke, 5
// above.
inline int DefaultRepetitions(std::string_view scale) {
  return scale == "tiny" || scale == "smoke" ? 3 : 5;
}

}  // namespace flatbench::bench
