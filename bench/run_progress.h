#pragma once
// The bench's progress through its schedule: time elapsed, and what is
// left (plan.h's Eta) when the steps have estimates.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "bench/plan.h"
#include "bench/schedule.h"

namespace flatbench::bench {

class RunProgress {
 public:
  RunProgress(const std::vector<Phase>& phases,
              const std::function<double(const Step&)>& estimate)
      : start_(std::chrono::steady_clock::now()),
        each_(Estimates(phases, estimate)),
        eta_(each_),
        has_eta_(static_cast<bool>(estimate)) {}
  void Done(size_t index, double seconds) { eta_.Done(index, seconds); }
  // A step an earlier session ran (the journal's): it counts as estimated.
  void Skip(size_t index) {
    eta_.Done(index, index < each_.size() ? each_[index] : 0);
  }
  std::string Line() const {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count();
    std::string s = FormatDuration(elapsed) + " elapsed";
    if (!has_eta_) return s;
    return s + ", ETA " + FormatDuration(eta_.LeftSeconds());
  }

 private:
  static std::vector<double> Estimates(
      const std::vector<Phase>& phases,
      const std::function<double(const Step&)>& estimate) {
    std::vector<double> out;
    if (!estimate) return out;
    for (const auto& p : phases) {
      for (const auto& s : p.steps) out.push_back(estimate(s));
    }
    return out;
  }
  std::chrono::steady_clock::time_point start_;
  std::vector<double> each_;
  Eta eta_;
  bool has_eta_;
};

}  // namespace flatbench::bench
