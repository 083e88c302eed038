#pragma once
// Child processes: one primitive that starts a program (Spawn) and reaps it
// (WaitChild), registered with the stop handler (common/stop_signals.h);
// this same binary run as a command (SpawnSelf) or as a line-talking worker
// (LineChild); and how a parent reads a child's end against the exit
// contract (common/exit_codes.h).

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace flatbench::bench {

// How a child process ended: it exited with a code, or a signal killed it.
struct ChildExit {
  int code = 0;    // The exit status, when it exited.
  int signal = 0;  // The signal that killed it; 0 when it exited.

  bool ok() const { return signal == 0 && code == 0; }
  // The error Code its exit means for a process running `command`: nothing
  // when a signal killed it, or it exited with a code `command` does not
  // document (DocumentedExit), or with a verdict or 128 + N, which no Code
  // names.
  std::optional<Code> DocumentedCode(std::string_view command) const;
  // The exit code that passes this end on: the child's own, or
  // ExitCodeForSignal.
  int ExitCode() const;
  // "exited 66 (missing input)" (the meaning `command` documents for it),
  // "exited 1" (a code `command` does not document), "killed by signal 9
  // (Killed)".
  std::string Describe(std::string_view command) const;
};

// How a child running `command` ended, as its parent's Status: ok when it
// exited 0; the Code of an error exit `command` documents (the child has
// printed its own message; `what` names the child); kChildFailed for
// anything else: a signal, a code `command` does not document (a
// sanitizer's report exits 1 or 23), a verdict or a 128 + N.
Status ChildStatus(const ChildExit& end, std::string_view command,
                   const std::string& what);

// A started child: its pid, and the parent's ends of the pipes asked for.
struct Child {
  pid_t pid = -1;
  int to_stdin = -1;     // Write end of the child's stdin, or -1.
  int from_stdout = -1;  // Read end of the child's stdout, or -1.
};
struct SpawnPipes {
  bool to_stdin = false;
  bool from_stdout = false;
};

// Starts argv[0] (a path) with `argv`, inheriting the environment and each
// stream not piped. It is started and registered as a child (a stop signal
// to this process sends it SIGTERM) under one StopGuard. kIOError when it
// could not be started, or a stop signal came first. The caller reaps it
// with WaitChild.
Result<Child> Spawn(const std::vector<std::string>& argv, SpawnPipes pipes);

// Waits for `pid` to end (EINTR retried), unregisters it and says how it
// ended; kIOError when it cannot be waited for.
Result<ChildExit> WaitChild(pid_t pid);

// Runs /proc/self/exe with `args` (argv[1..]), inheriting stdin, stdout,
// stderr and the environment, and waits for it. kIOError when it could not
// be started (or a stop signal came first) or waited for.
Result<ChildExit> SpawnSelf(const std::vector<std::string>& args);

// A child of /proc/self/exe that talks in lines: the parent writes requests
// to its stdin and reads one response line per request from its stdout. Its
// stderr is inherited. Destroying the object closes the child's stdin (so a
// line-reading child sees end of input and exits) and reaps it. It is a
// registered child too, as SpawnSelf's are. A child that dies is a
// kChildFailed error of Exchange.
class LineChild {
 public:
  static Result<std::unique_ptr<LineChild>> Start(
      const std::vector<std::string>& args);
  ~LineChild();
  LineChild(const LineChild&) = delete;
  LineChild& operator=(const LineChild&) = delete;

  // Writes `line` plus a newline and reads one line back (without it).
  // When the child has died, kChildFailed says how it ended.
  Result<std::string> Exchange(const std::string& line);

 private:
  LineChild() = default;
  // Ends the child if it still runs, reaps it and says how it ended.
  std::string Reap();
  std::string command_;  // args[0]: the command the child runs.
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

}  // namespace flatbench::bench
