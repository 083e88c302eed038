#include "bench/histogram.h"

#include <algorithm>
#include <cmath>

namespace flatbench::bench {

int Histogram::BucketOf(uint64_t v) {
  constexpr uint64_t kSub = 1ULL << kSubBits;
  if (v < kSub) return static_cast<int>(v);
  int msb = 63 - __builtin_clzll(v);
  int shift = msb - kSubBits;
  // v >> shift lies in [kSub, 2 * kSub): its low bits pick the sub-bucket.
  return ((shift + 1) << kSubBits) |
         static_cast<int>((v >> shift) & (kSub - 1));
}

uint64_t Histogram::BucketLow(int bucket) {
  constexpr uint64_t kSub = 1ULL << kSubBits;
  int group = bucket >> kSubBits;
  uint64_t sub = static_cast<uint64_t>(bucket) & (kSub - 1);
  if (group == 0) return sub;
  return (kSub | sub) << (group - 1);
}

uint64_t Histogram::BucketWidth(int bucket) {
  int group = bucket >> kSubBits;
  return group == 0 ? 1 : 1ULL << (group - 1);
}

void Histogram::Merge(const Histogram& other) {
  for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  max_ = std::max(max_, other.max_);
  min_ = std::min(min_, other.min_);
}

double Histogram::Mean() const {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0;
}

double Histogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  uint64_t rank =
      static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      double mid = static_cast<double>(BucketLow(i)) +
                   static_cast<double>(BucketWidth(i) - 1) / 2.0;
      return std::clamp(mid, static_cast<double>(min()),
                        static_cast<double>(max_));
    }
  }
  return static_cast<double>(max_);
}

}  // namespace flatbench::bench
