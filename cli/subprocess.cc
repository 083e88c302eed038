#include "cli/subprocess.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>

extern char** environ;

namespace flatbench::cli {

int SpawnSelf(const std::vector<std::string>& args) {
  static const char kSelf[] = "/proc/self/exe";
  std::vector<char*> argv;
  std::string self = kSelf;
  argv.push_back(self.data());
  for (const auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid;
  if (posix_spawn(&pid, kSelf, nullptr, nullptr, argv.data(), environ) != 0) {
    return 74;
  }
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return 74;
  }
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  return 128 + (WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
}

}  // namespace flatbench::cli
