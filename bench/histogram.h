#pragma once
// A log-linear latency histogram: exact below 64 ns, then 64 linear
// sub-buckets per power of two (relative error under 1.6%). One per reader
// thread; Record is a few instructions and never allocates; histograms are
// merged after the pass.

#include <array>
#include <cstdint>

namespace flatbench::bench {

class Histogram {
 public:
  static constexpr int kSubBits = 6;  // 64 sub-buckets per power of two.
  static constexpr int kBuckets = (64 - kSubBits + 1) << kSubBits;

  void Record(uint64_t ns) {
    ++counts_[BucketOf(ns)];
    ++count_;
    sum_ += ns;
    if (ns > max_) max_ = ns;
    if (ns < min_) min_ = ns;
  }
  void Merge(const Histogram& other);

  uint64_t count() const { return count_; }
  double Mean() const;
  // The value at quantile q in [0, 1]: the midpoint of the bucket that holds
  // the ceil(q * count)-th smallest sample, clamped to [min, max]. 0 when
  // empty.
  double Percentile(double q) const;
  uint64_t max() const { return max_; }
  uint64_t min() const { return count_ ? min_ : 0; }

  static int BucketOf(uint64_t v);
  // Smallest value that falls into `bucket`, and the number of values it
  // spans.
  static uint64_t BucketLow(int bucket);
  static uint64_t BucketWidth(int bucket);

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t max_ = 0;
  uint64_t min_ = UINT64_MAX;
};

}  // namespace flatbench::bench
