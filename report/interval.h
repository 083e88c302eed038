#pragma once
// How precisely the repetitions pin down a ratio: a percentile bootstrap
// interval of the ratio of medians.
//
// Each resample draws the candidate's and the baseline's repetitions with
// replacement (independently, same counts as measured), takes each median
// and their ratio; the interval runs from the 2.5th to the 97.5th
// percentile of kResamples such ratios. The generator is seeded with a
// fixed value, so a report is reproducible byte for byte.

#include <cstdint>
#include <vector>

namespace flatbench::report {

inline constexpr int kResamples = 2000;
inline constexpr double kConfidence = 0.95;
inline constexpr uint64_t kBootstrapSeed = 0x626f6f7473747261ULL;

struct Interval {
  double low = 0;
  double high = 0;
  // True if the bound lies strictly inside: the data allow a ratio on
  // either side of it.
  bool Contains(double bound) const { return low < bound && bound < high; }
};

// The bootstrap interval of median(x) / median(y). NaN bounds if either is
// empty. REQUIRES: finite, positive values.
Interval BootstrapRatioOfMedians(const std::vector<double>& x,
                                 const std::vector<double>& y);

// The median of `v` (mean of the middle two for an even count); NaN if
// empty.
double Median(std::vector<double> v);

}  // namespace flatbench::report
