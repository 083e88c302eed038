#pragma once
// The progress lines' ETA: what is left of a run, from the plan's step
// estimates (plan.h) and the time the finished steps took.

#include <cstddef>
#include <vector>

namespace flatbench::bench {

// What is left of a run, for the progress lines: the steps' estimates
// scaled by how long the finished steps took against theirs. Only the
// steps' own seconds count, so work between steps (holding warm files,
// opening workers) does not inflate the scale; and the scale starts from
// the model (1) and moves to the measured ratio as estimated seconds are
// done, so the first short pass cannot swing the ETA by orders of magnitude.
class Eta {
 public:
  explicit Eta(std::vector<double> estimates);
  // Step `index` finished after `seconds` of its own.
  void Done(size_t index, double seconds);
  double Scale() const;
  double LeftSeconds() const;

 private:
  std::vector<double> each_;
  double total_ = 0, done_ = 0, measured_ = 0, left_ = 0;
};

}  // namespace flatbench::bench
