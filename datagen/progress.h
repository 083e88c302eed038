#pragma once
// Progress lines on stderr for long work: done/total, rate and ETA, at most
// about once a second, plus a final line.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace flatbench::datagen {

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

// One line for several tasks running at once (gen's backends in flight):
// overall done/total, each task's share, and one ETA for the whole, at most
// about once a second. Safe to call from any thread.
class GroupProgress {
 public:
  // `total` counts the units of every task, queued ones included.
  GroupProgress(std::string what, std::string unit, uint64_t total,
                bool enabled = true);
  // Task `task` has done `done` of its `total` units.
  void Update(const std::string& task, uint64_t done, uint64_t total);
  // Task `task` finished (or stopped) with `done` units: it leaves the line.
  void Finish(const std::string& task, uint64_t done);

 private:
  using Clock = std::chrono::steady_clock;
  struct Task {
    std::string name;
    uint64_t done = 0, total = 0;
  };
  void PrintLocked(Clock::time_point now);

  const std::string what_, unit_;
  const uint64_t total_;
  const bool enabled_;
  const Clock::time_point start_;
  std::mutex mu_;
  Clock::time_point last_;
  uint64_t finished_ = 0;    // Units of finished tasks.
  std::vector<Task> tasks_;  // In flight, in start order.
};

}  // namespace flatbench::datagen
