#pragma once
// Runs this same binary as a child process.

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace flatbench {

// How a child process ended: it exited with a code, or a signal killed it.
struct ChildExit {
  int code = 0;    // The exit status, when it exited.
  int signal = 0;  // The signal that killed it; 0 when it exited.

  bool ok() const { return signal == 0 && code == 0; }
  // The Code its exit documents (CodeForExitCode); nothing when a signal
  // killed it or it exited with a code the contract does not name.
  std::optional<Code> DocumentedCode() const;
  // The exit code that passes this end on: the child's own, or
  // ExitCodeForSignal.
  int ExitCode() const;
  // "exited 66 (missing input)", "exited 3", "killed by signal 9 (Killed)".
  std::string Describe() const;
};

// Runs /proc/self/exe with `args` (argv[1..]), inheriting stdin, stdout,
// stderr and the environment, and waits for it. While it runs it is a
// registered child (common/stop_signals.h): a stop signal to this process
// sends it SIGTERM. kIOError when it could not be started (or a stop
// signal came first) or waited for.
Result<ChildExit> SpawnSelf(const std::vector<std::string>& args);

// A child of /proc/self/exe that talks in lines: the parent writes requests
// to its stdin and reads one response line per request from its stdout. Its
// stderr is inherited. Destroying the object closes the child's stdin (so a
// line-reading child sees end of input and exits) and reaps it. It is a
// registered child too, as SpawnSelf's are.
class LineChild {
 public:
  static Result<std::unique_ptr<LineChild>> Start(
      const std::vector<std::string>& args);
  ~LineChild();
  LineChild(const LineChild&) = delete;
  LineChild& operator=(const LineChild&) = delete;

  // Writes `line` plus a newline and reads one line back (without it).
  // When the child has died, kIOError says how it ended.
  Result<std::string> Exchange(const std::string& line);

 private:
  LineChild() = default;
  // Ends the child if it still runs, reaps it and says how it ended.
  std::string Reap();
  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
};

// In the child: the stream that responses go to (the original stdout), after
// pointing fd 1 at stderr so that nothing else can write into the channel.
// The child also asks to be killed when its parent dies.
FILE* TakeResponseStream();

// In a child that reads a store which may be damaged (LMDB trusts its
// pages): a fault ends it by its signal, for the parent to see, even where a
// sanitizer's handler would turn it into an exit status that reads as an
// answer (its default, 1, is also `get`'s "not found").
void DieBySignalOnFault();

}  // namespace flatbench
