#include "bench/eta.h"

#include <algorithm>
#include <utility>

namespace flatbench::bench {

Eta::Eta(std::vector<double> estimates) : each_(std::move(estimates)) {
  for (double e : each_) total_ += e;
  left_ = total_;
}

void Eta::Done(size_t index, double seconds) {
  if (index >= each_.size()) return;
  done_ += each_[index];
  left_ -= each_[index];
  measured_ += std::max(0.0, seconds);
}

double Eta::Scale() const {
  // The model counts as this many estimated seconds already measured at
  // scale 1: a twentieth of the run, at most a minute.
  const double prior = std::min(60.0, 0.05 * total_);
  if (done_ + prior <= 0) return 1.0;
  return (measured_ + prior) / (done_ + prior);
}

double Eta::LeftSeconds() const { return std::max(0.0, left_) * Scale(); }

}  // namespace flatbench::bench
