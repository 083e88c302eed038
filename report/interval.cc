#include "report/interval.h"

#include <algorithm>
#include <cmath>

#include "common/rng.h"

namespace flatbench::report {
namespace {

// SplitMix64 with an explicit range mapping: the same numbers on every
// standard library, which std::*_distribution is not. The mapping (53 bits
// as a fraction) predates SplitMix64::Below and is kept so that recorded
// intervals reproduce.
class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  size_t Below(size_t n) {
    // 53 random bits as a fraction in [0, 1), scaled to [0, n).
    return static_cast<size_t>(static_cast<double>(rng_.Next() >> 11) *
                               0x1.0p-53 * static_cast<double>(n));
  }

 private:
  SplitMix64 rng_;
};

double MedianOfResample(const std::vector<double>& v, Draw* draw,
                        std::vector<double>* scratch) {
  scratch->clear();
  for (size_t i = 0; i < v.size(); ++i)
    scratch->push_back(v[draw->Below(v.size())]);
  return Median(*scratch);
}

}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Interval BootstrapRatioOfMedians(const std::vector<double>& x,
                                 const std::vector<double>& y) {
  if (x.empty() || y.empty()) return {NAN, NAN};
  Draw draw(kBootstrapSeed);
  std::vector<double> ratios, scratch;
  ratios.reserve(kResamples);
  for (int i = 0; i < kResamples; ++i) {
    double a = MedianOfResample(x, &draw, &scratch);
    double b = MedianOfResample(y, &draw, &scratch);
    ratios.push_back(a / b);
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - kConfidence) / 2;
  size_t lo = static_cast<size_t>(std::floor(tail * kResamples));
  size_t hi = static_cast<size_t>(std::ceil((1 - tail) * kResamples)) - 1;
  return {ratios[lo], ratios[std::min(hi, ratios.size() - 1)]};
}

}  // namespace flatbench::report
