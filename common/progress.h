#pragma once
// Progress lines on stderr for long work: done/total, rate and ETA, at most
// about once a second, plus a final line.

#include <chrono>
#include <cstdint>
#include <string>

namespace flatbench {

class Progress {
 public:
  // `what` prefixes each line; `unit` names what is counted ("keys").
  Progress(std::string what, std::string unit, bool enabled = true);
  // Prints when at least a second has passed since the last line.
  void Update(uint64_t done, uint64_t total);
  // Prints the final line with the overall rate; returns elapsed seconds.
  double Finish(uint64_t done);

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_, unit_;
  bool enabled_;
  Clock::time_point start_, last_;
};

}  // namespace flatbench
