#pragma once
// Stopping on SIGINT, SIGTERM or SIGHUP: what a flatbench process undoes
// before it ends (the child processes it runs, the servers it started) and
// how it ends.
//
// InstallStopHandler starts a watcher thread; the signal handler only
// records the signal and wakes the watcher through a pipe. The watcher
// then, holding the registry (StopGuard) so that nothing starts meanwhile:
//   1. sends SIGTERM to every registered child process and waits for each
//      to end (kChildGraceSeconds, then SIGKILL);
//   2. runs every registered stop action, newest first (a server's stop);
//   3. a leaf process (kLeaf) prints one line and ends with 128 + N at
//      once; a parent (kParent) leaves its main thread to say where it
//      stopped and return 128 + N (StopSignal() tells it a stop is under
//      way), and ends the process itself only if that takes longer than
//      kParentGraceSeconds.
// Children get SIGTERM whatever the signal was: a child that is stopping
// on its own (a terminal's SIGINT reaches the whole group) takes a second,
// different signal as a repeat, never as a kill.
// A process that never calls InstallStopHandler (the tests, gen and import
// with their own handlers) keeps the registry as bookkeeping only.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

namespace flatbench {

enum class StopRole { kLeaf, kParent };

inline constexpr int kChildGraceSeconds = 30;
inline constexpr int kParentGraceSeconds = 30;

// Catches SIGINT, SIGTERM and SIGHUP from now on. `who` names the process
// in the leaf's last line ("flatbench: <who>: stopped by signal N (...)").
// Later calls change only the name and the role.
void InstallStopHandler(const std::string& who, StopRole role);

// The signal that asked this process to stop, or 0.
int StopSignal();

// "signal 2 (Interrupt)".
std::string DescribeSignal(int signo);

// Holds the watcher off while alive (recursive): start a child or a server
// and register it under one guard, so that a stop cannot fall between the
// two and leave it running.
class StopGuard {
 public:
  StopGuard();
  ~StopGuard();
  StopGuard(const StopGuard&) = delete;
  StopGuard& operator=(const StopGuard&) = delete;
};

// A child process the watcher ends (SIGTERM, then SIGKILL) and waits for
// without reaping it, so the code that started it still collects its
// status. Unregister once it has been reaped.
void RegisterChild(pid_t pid);
void UnregisterChild(pid_t pid);

// An action the watcher runs after the children have ended (it may run
// programs, take seconds, and call RemoveStopAction). Returns its id.
uint64_t AddStopAction(std::function<void()> action);
// Removes it; waits while the watcher runs the actions. 0 is ignored.
void RemoveStopAction(uint64_t id);

}  // namespace flatbench
