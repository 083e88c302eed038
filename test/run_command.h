#pragma once
// Runs the flatbench binary (path from $FLATBENCH_BIN) through the shell and
// captures its exit code, stdout and stderr, for end-to-end CLI tests.

#include <spawn.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test/temp_dir.h"

extern char** environ;

namespace flatbench::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string FlatbenchBin() {
  const char* bin = std::getenv("FLATBENCH_BIN");
  return bin != nullptr ? bin : "flatbench";
}

// Starts the flatbench binary with `args` (no shell) and returns its pid
// without waiting, or -1 when it could not be started.
inline pid_t SpawnFlatbench(const std::vector<std::string>& args) {
  const std::string bin = FlatbenchBin();
  std::vector<std::string> words = {bin};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (::posix_spawn(&pid, bin.c_str(), nullptr, nullptr, argv.data(),
                    environ) != 0) {
    return -1;
  }
  return pid;
}

// `args` is appended to the binary's path as shell words; each of `env`
// ("NAME=value", shell words too) is set in its environment.
inline CommandResult RunFlatbench(const std::string& args,
                                  const std::vector<std::string>& env = {}) {
  TempDir tmp;
  std::string cmd;
  for (const auto& e : env) cmd += e + " ";
  cmd += FlatbenchBin() + " " + args + " >" + (tmp / "out") + " 2>" +
         (tmp / "err") + " </dev/null";
  int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::stringstream out, err;
  out << std::ifstream(tmp / "out").rdbuf();
  err << std::ifstream(tmp / "err").rdbuf();
  r.out = out.str();
  r.err = err.str();
  return r;
}

// Lines in `s` (newline characters): an error is one line.
inline int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Whether this build of flatbench holds `backend` (gen's help names it).
inline bool Built(const std::string& backend) {
  return RunFlatbench("gen --help").out.find(backend) != std::string::npos;
}

}  // namespace flatbench::testing
