#pragma once
// The stop-signal tests' tools (interrupt_test.cc, interrupt_journal_test.cc):
// a command started alone with its stderr in a file, polling with a bound,
// what the command left running, and a tiny dataset shared by the cases.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test/run_command.h"
#include "test/temp_dir.h"

extern char** environ;

namespace flatbench::testing::interrupt {

namespace fs = std::filesystem;
using flatbench::testing::FlatbenchBin;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
using Clock = std::chrono::steady_clock;

// Hang detectors, not speed targets: generous for a loaded host.
inline constexpr auto kReachBound = std::chrono::seconds(600);
inline constexpr auto kStopBound = std::chrono::seconds(180);

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Polls `done` every 50 ms until it holds or `bound` passes.
template <typename Fn>
inline bool PollUntil(Fn done, Clock::duration bound) {
  const auto end = Clock::now() + bound;
  for (;;) {
    if (done()) return true;
    if (Clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// A flatbench process with its stderr in a file.
class Command {
 public:
  Command(const std::vector<std::string>& args, const std::string& err,
          const std::vector<std::string>& env_extra = {})
      : err_(err) {
    std::vector<std::string> words = {FlatbenchBin()};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_words;
    for (char** e = environ; *e != nullptr; ++e) env_words.push_back(*e);
    env_words.insert(env_words.end(), env_extra.begin(), env_extra.end());
    std::vector<char*> envp;
    for (auto& w : env_words) envp.push_back(w.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // Catch2 handles some signals itself: the command starts with none
    // blocked and every stop signal at its default.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, stops;
    sigemptyset(&none);
    sigemptyset(&stops);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, s);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &stops);
    posix_spawnattr_setflags(&attr,
                             POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    const int rc =
        posix_spawn(&pid_, argv[0], &fa, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) pid_ = -1;
  }
  ~Command() {
    if (pid_ > 0 && exit_code_ < 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  std::string Err() const { return Slurp(err_); }
  bool ErrHas(const std::string& s) const {
    return Err().find(s) != std::string::npos;
  }
  // The exit code (128 + N for a signal), or -1 if it runs past `bound`.
  int Wait(Clock::duration bound) {
    PollUntil(
        [&] {
          int status = 0;
          if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
          exit_code_ =
              WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
          return true;
        },
        bound);
    return exit_code_;
  }

 private:
  std::string err_;
  pid_t pid_ = -1;
  int exit_code_ = -1;
};

inline int ParentPid(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(in, line)) return 0;
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  char state = 0;
  int ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

// Live processes that are this process's children (reaping the zombies
// among them) or that name `dir` on their command line.
inline std::vector<std::string> Remaining(const std::string& dir) {
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  std::vector<std::string> out;
  const int self = getpid();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (!std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    if (std::stoi(pid) == self) continue;
    std::string cmd = Slurp("/proc/" + pid + "/cmdline");
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (ParentPid(pid) == self || cmd.find(dir) != std::string::npos) {
      out.push_back(pid + ": " + cmd);
    }
  }
  return out;
}

inline void CheckNothingRemains(const std::string& dir) {
  std::vector<std::string> left;
  const bool gone = PollUntil(
      [&] {
        left = Remaining(dir);
        return left.empty();
      },
      kStopBound);
  INFO("still running: " << (left.empty() ? "" : left.front()));
  CHECK(gone);
}

// A tiny dataset of `backends` in `dir`, built once per process.
inline void Gen(const std::string& dir, const std::string& backends) {
  auto r = RunFlatbench("gen --scale tiny --quiet --dir " + dir +
                        " --backends " + backends);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

inline const std::string& SharedDataset() {
  // Removed at the process's exit, after every case.
  static TempDir tmp;
  static const std::string dir = [] {
    const std::string d = tmp / "data";
    Gen(d, "arena");  // Every build has it (the sanitizer trees only it).
    return d;
  }();
  return dir;
}

// Sends `sig` to `c` alone once its stderr shows `marker`; checks the exit
// code, the stop line and that nothing it started remains.
inline void Interrupt(Command& c, int sig, const std::string& marker,
                      const std::string& dir) {
  REQUIRE(c.pid() > 0);
  const bool reached = PollUntil([&] { return c.ErrHas(marker); }, kReachBound);
  INFO(c.Err());
  REQUIRE(reached);
  REQUIRE(kill(c.pid(), sig) == 0);
  const int code = c.Wait(kStopBound);
  INFO(c.Err());
  CHECK(code == 128 + sig);
  CHECK(c.ErrHas("stopped by signal " + std::to_string(sig)));
  CHECK(c.ErrHas("resume"));
  CheckNothingRemains(dir);
}

// The step numbers i of bench's "bench [i/T]" progress lines, and T.
inline std::set<int> PassesRun(const std::string& err, int* total) {
  std::set<int> out;
  size_t at = 0;
  while ((at = err.find("bench [", at)) != std::string::npos) {
    at += 7;
    const size_t slash = err.find('/', at);
    out.insert(std::stoi(err.substr(at, slash - at)));
    *total = std::stoi(err.substr(slash + 1));
  }
  return out;
}

// A bench of 12 passes on the shared dataset: 2 tables x 2 kinds x 3
// repetitions of the arena, cold.
inline std::vector<std::string> SmallBench(const std::string& data,
                                           const std::string& out) {
  return {"bench",           "--dir",     data,      "--out",   out,
          "--backends",      "arena",     "--modes", "cold",    "--kinds",
          "hit,miss-absent", "--threads", "1",       "--reads", "200",
          "--repetitions",   "3",         "--evict", "fadvise"};
}

// Runs `args` to its end; its exit code and stderr.
inline std::pair<int, std::string> RunToEnd(
    const std::vector<std::string>& args, const std::string& err) {
  Command c(args, err);
  const int code = c.Wait(kReachBound);
  return {code, c.Err()};
}

// Stops `args` with `sig` once it holds after pass `n` (the test hook).
inline void StopAfterPass(const std::vector<std::string>& args, int n, int sig,
                          const std::string& err, const std::string& dir) {
  Command c(args, err, {"FLATBENCH_TEST_HOLD_AFTER_PASS=" + std::to_string(n)});
  const bool reached = PollUntil(
      [&] { return c.ErrHas("holding after pass " + std::to_string(n)); },
      kReachBound);
  INFO(c.Err());
  REQUIRE(reached);
  REQUIRE(kill(c.pid(), sig) == 0);
  CHECK(c.Wait(kStopBound) == 128 + sig);
  CheckNothingRemains(dir);
}

inline nlohmann::json ReadJson(const std::string& path) {
  return nlohmann::json::parse(Slurp(path), nullptr, false);
}

inline std::set<std::string> EntryNames(const nlohmann::json& doc) {
  std::set<std::string> out;
  for (const auto& e : doc["benchmarks"]) out.insert(e["name"]);
  return out;
}

}  // namespace flatbench::testing::interrupt
