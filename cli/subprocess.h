#pragma once
// Runs this same binary as a child process.

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace flatbench::cli {

// Runs /proc/self/exe with `args` (argv[1..]), inheriting stdin, stdout,
// stderr and the environment. Returns the child's exit code, 128 + signal if
// it was killed, or 74 if it could not be started or waited for.
int SpawnSelf(const std::vector<std::string>& args);

// A child of /proc/self/exe that talks in lines: the parent writes requests
// to its stdin and reads one response line per request from its stdout. Its
// stderr is inherited. Destroying the object closes the child's stdin (so a
// line-reading child sees end of input and exits) and reaps it.
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
  // How the child ended ("exited 74", "killed by signal 9"); reaps it.
  std::string Reap();
  pid_t pid_ = -1;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
};

// In the child: the stream that responses go to (the original stdout), after
// pointing fd 1 at stderr so that nothing else can write into the channel.
// The child also asks to be killed when its parent dies.
FILE* TakeResponseStream();

}  // namespace flatbench::cli
