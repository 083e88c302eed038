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

// Median() of a resample of `v` with replacement, v.size() draws, without
// sorting it: `order` ranks v's indices by value, the draws are counted
// per index, and the middle draws are found walking the counts in that
// order. The same draws, and so the same median, as sorting the drawn
// values, in time linear in v.size() and with no allocation (the
// bootstrap takes thousands of medians per ratio).
double MedianOfResample(const std::vector<double>& v,
                        const std::vector<size_t>& order, Draw* draw,
                        std::vector<size_t>* counts) {
  const size_t n = v.size();
  counts->assign(n, 0);
  for (size_t i = 0; i < n; ++i) ++(*counts)[draw->Below(n)];
  // The value of the k-th smallest draw (from 0).
  auto kth = [&](size_t k) {
    size_t seen = 0;
    for (size_t i : order) {
      seen += (*counts)[i];
      if (seen > k) return v[i];
    }
    return v[order.back()];
  };
  return n % 2 == 1 ? kth(n / 2) : (kth(n / 2 - 1) + kth(n / 2)) / 2;
}

// v's indices in ascending order of value.
std::vector<size_t> Ranked(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return v[a] < v[b]; });
  return order;
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
  const std::vector<size_t> x_order = Ranked(x), y_order = Ranked(y);
  std::vector<double> ratios;
  std::vector<size_t> counts;
  ratios.reserve(kResamples);
  for (int i = 0; i < kResamples; ++i) {
    double a = MedianOfResample(x, x_order, &draw, &counts);
    double b = MedianOfResample(y, y_order, &draw, &counts);
    ratios.push_back(a / b);
  }
  const double tail = (1 - kConfidence) / 2;
  size_t lo = static_cast<size_t>(std::floor(tail * kResamples));
  size_t hi = static_cast<size_t>(std::ceil((1 - tail) * kResamples)) - 1;
  hi = std::min(hi, ratios.size() - 1);
  // The two percentiles by selection, as a whole sort would place them.
  const auto at = [&](size_t i) {
    return ratios.begin() + static_cast<std::ptrdiff_t>(i);
  };
  std::nth_element(ratios.begin(), at(lo), ratios.end());
  const double low = ratios[lo];
  std::nth_element(at(lo), at(hi), ratios.end());
  return {low, ratios[hi]};
}

}  // namespace flatbench::report
