#pragma once
// Waiting, with a bound, for what another process does in its own time: a
// process exiting, a file appearing. A busy machine delays the event; a
// test that sampled it once would fail, so it polls until the event or a
// generous deadline.

#include <chrono>
#include <thread>

namespace flatbench::testing {

// How long a test waits for another process before it fails.
inline constexpr std::chrono::seconds kProcessDeadline{30};

// Calls `done` every 20 ms until it returns true or `limit` has passed;
// returns its last answer.
template <typename Done>
bool WaitUntil(Done done, std::chrono::seconds limit = kProcessDeadline) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

}  // namespace flatbench::testing
