#pragma once
// Runs the flatbench binary (path from $FLATBENCH_BIN) through the shell and
// captures its exit code, stdout and stderr, for end-to-end CLI tests.

#include <fcntl.h>
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
// without waiting, or -1 when it could not be started. Each of `env`
// ("NAME=value") is added to its environment; with `err`, its stderr goes
// to that file.
inline pid_t SpawnFlatbench(const std::vector<std::string>& args,
                            const std::vector<std::string>& env = {},
                            const std::string& err = "") {
  const std::string bin = FlatbenchBin();
  std::vector<std::string> words = {bin};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_words(env);
  std::vector<char*> envp;
  for (auto& w : env_words) envp.push_back(w.data());
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  ::posix_spawn_file_actions_init(&fa);
  if (!err.empty()) {
    ::posix_spawn_file_actions_addopen(&fa, 2, err.c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  pid_t pid = -1;
  const int rc =
      ::posix_spawn(&pid, bin.c_str(), &fa, nullptr, argv.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
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
