// A stop signal (SIGINT, SIGTERM, SIGHUP) sent to `bench`, `gonogo` or
// `sweep` alone, not to its process group: the command ends every process
// it started (bench workers, a worker's PostgreSQL server, a gonogo or
// sweep phase), says where it stopped and how to resume, and exits with
// 128 + N; the rerun resumes.
//
// This test process is a child subreaper (PR_SET_CHILD_SUBREAPER): anything
// the command leaves behind, a daemonized postmaster included, becomes its
// child, so "nothing remains" is checked by polling its own children (and
// every process naming the test's directory) with a bound, never by one
// sample. Each command is started with its own pid and signalled alone.
// Run with "[postgres]" for the PostgreSQL case only (registered only in a
// build with PostgreSQL; exit 77, Meson's skip, when this host has no
// PostgreSQL server).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
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

#include "test/catch_session.h"
#include "test/run_command.h"
#include "test/temp_dir.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using flatbench::testing::FlatbenchBin;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
using Clock = std::chrono::steady_clock;

// Hang detectors, not speed targets: generous for a loaded host.
constexpr auto kReachBound = std::chrono::seconds(600);
constexpr auto kStopBound = std::chrono::seconds(180);

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Polls `done` every 50 ms until it holds or `bound` passes.
template <typename Fn>
bool PollUntil(Fn done, Clock::duration bound) {
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

int ParentPid(const std::string& pid) {
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
std::vector<std::string> Remaining(const std::string& dir) {
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

void CheckNothingRemains(const std::string& dir) {
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
void Gen(const std::string& dir, const std::string& backends) {
  auto r = RunFlatbench("gen --scale tiny --quiet --dir " + dir +
                        " --backends " + backends);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

const std::string& SharedDataset() {
  static TempDir* tmp = new TempDir();  // Outlives every case.
  static const std::string dir = [] {
    const std::string d = *tmp / "data";
    Gen(d, "arena");  // Every build has it (the sanitizer trees only it).
    return d;
  }();
  return dir;
}

// Sends `sig` to `c` alone once its stderr shows `marker`; checks the exit
// code, the stop line and that nothing it started remains.
void Interrupt(Command& c, int sig, const std::string& marker,
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

}  // namespace

TEST_CASE("a stop signal to bench ends its workers and exits 128+N") {
  const int sig = GENERATE(SIGINT, SIGTERM, SIGHUP);
  CAPTURE(sig);
  const std::string& data = SharedDataset();
  TempDir tmp;
  // Enough repetitions that the run is still measuring when the signal
  // arrives, however loaded the host.
  Command bench({"bench", "--dir", data, "--out", tmp / "r.json", "--modes",
                 "cold", "--kinds", "hit", "--threads", "1", "--reads", "200",
                 "--repetitions", "1000", "--evict", "fadvise"},
                tmp / "err");
  Interrupt(bench, sig, "bench [", data);
  CHECK(bench.ErrHas("at pass "));
  CHECK_FALSE(fs::exists(tmp / "r.json"));  // Nothing half-written.
}

TEST_CASE("a stop signal to gonogo stops its bench child; the rerun resumes") {
  TempDir tmp;
  const std::string data = tmp / "data";
  const std::vector<std::string> args = {
      "gonogo",    "--scale",    "tiny",    "--dir",         data, "--results",
      tmp / "res", "--backends", "arena",   "--threads",     "1",  "--reads",
      "200",       "--evict",    "fadvise", "--repetitions", "1"};
  // The test hook holds the bench phase after two passes until a signal.
  Command first(args, tmp / "err1", {"FLATBENCH_TEST_HOLD_AFTER_PASS=2"});
  Interrupt(first, SIGINT, "holding after pass 2", tmp.path());
  CHECK(first.ErrHas("in phase 3/4 (bench)"));

  // The same run resumes: gen and verify are not redone, and the bench
  // phase continues from its journal at pass 3.
  Command rerun(args, tmp / "err2");
  const int code = rerun.Wait(kReachBound);
  INFO(rerun.Err());
  CHECK(code == 2);  // INCONCLUSIVE: a tiny run is never a verdict.
  CHECK(rerun.ErrHas("gonogo: resuming"));
  CHECK(rerun.ErrHas("gen: done earlier, skipped"));
  CHECK(rerun.ErrHas("verify: done earlier, skipped"));
  CHECK(rerun.ErrHas("bench: resuming"));
  CHECK(rerun.ErrHas("2 of "));
  CHECK_FALSE(rerun.ErrHas("bench [1/"));
  CHECK_FALSE(rerun.ErrHas("bench [2/"));
}

// The step numbers i of bench's "bench [i/T]" progress lines, and T.
std::set<int> PassesRun(const std::string& err, int* total) {
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
std::vector<std::string> SmallBench(const std::string& data,
                                    const std::string& out) {
  return {"bench",           "--dir",     data,      "--out",   out,
          "--backends",      "arena",     "--modes", "cold",    "--kinds",
          "hit,miss-absent", "--threads", "1",       "--reads", "200",
          "--repetitions",   "3",         "--evict", "fadvise"};
}

// Runs `args` to its end; its exit code and stderr.
std::pair<int, std::string> RunToEnd(const std::vector<std::string>& args,
                                     const std::string& err) {
  Command c(args, err);
  const int code = c.Wait(kReachBound);
  return {code, c.Err()};
}

// Stops `args` with `sig` once it holds after pass `n` (the test hook).
void StopAfterPass(const std::vector<std::string>& args, int n, int sig,
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

nlohmann::json ReadJson(const std::string& path) {
  return nlohmann::json::parse(Slurp(path), nullptr, false);
}

std::set<std::string> EntryNames(const nlohmann::json& doc) {
  std::set<std::string> out;
  for (const auto& e : doc["benchmarks"]) out.insert(e["name"]);
  return out;
}

TEST_CASE("bench killed by SIGKILL resumes with only the passes left") {
  const std::string& data = SharedDataset();
  TempDir tmp;
  const auto args = SmallBench(data, tmp / "r.json");
  StopAfterPass(args, 5, SIGKILL, tmp / "err1", data);
  CHECK_FALSE(fs::exists(tmp / "r.json"));
  REQUIRE(fs::exists(tmp / "r.json.journal"));

  auto [code, err] = RunToEnd(args, tmp / "err2");
  INFO(err);
  REQUIRE(code == 0);
  CHECK(err.find("bench: resuming " + tmp / "r.json.journal" + ": 5 of 12") !=
        std::string::npos);
  int total = 0;
  const std::set<int> ran = PassesRun(err, &total);
  CHECK(total == 12);
  // The passes left (6 to 12), plus at most the one in flight.
  REQUIRE_FALSE(ran.empty());
  CHECK(*ran.begin() >= 5);
  CHECK(*ran.rbegin() == 12);
  CHECK(ran.size() == static_cast<size_t>(12 - *ran.begin() + 1));
  CHECK(ran.size() <= 12 - 5 + 1);
  CHECK_FALSE(fs::exists(tmp / "r.json.journal"));  // Complete: removed.

  // The same shape and verdict as an uninterrupted run's on the same data.
  auto [whole_code, whole_err] =
      RunToEnd(SmallBench(data, tmp / "whole.json"), tmp / "err3");
  INFO(whole_err);
  REQUIRE(whole_code == 0);
  const auto resumed = ReadJson(tmp / "r.json");
  const auto whole = ReadJson(tmp / "whole.json");
  CHECK(EntryNames(resumed) == EntryNames(whole));
  CHECK(resumed["benchmarks"].size() == whole["benchmarks"].size());
  CHECK(resumed["context"]["flatbench.interruptions"] == 1);
  CHECK(whole["context"]["flatbench.interruptions"] == 0);
  int marked = 0;
  for (const auto& e : resumed["benchmarks"]) {
    marked += e.contains("interrupted_before_s") ? 1 : 0;
  }
  CHECK(marked == 1);
  auto rep = RunFlatbench("report " + tmp / "r.json" + " --out " + tmp / "rep");
  auto rep_whole =
      RunFlatbench("report " + tmp / "whole.json" + " --out " + tmp / "rep2");
  INFO(rep.err);
  CHECK(rep.exit_code == rep_whole.exit_code);
  CHECK(rep.exit_code == 2);  // INCONCLUSIVE: tiny is never a verdict.
  const std::string md = Slurp(tmp / "rep/report.md");
  CHECK(md.find("interrupted 1 time") != std::string::npos);
  CHECK(Slurp(tmp / "rep2/report.md").find("interrupted") == std::string::npos);
}

TEST_CASE("a torn journal line is detected, never read, and its pass re-run") {
  const std::string& data = SharedDataset();
  TempDir tmp;
  const auto args = SmallBench(data, tmp / "r.json");
  StopAfterPass(args, 4, SIGTERM, tmp / "err1", data);
  // Tear the last record (pass 4's), as a crash mid-append would.
  const std::string journal = tmp / "r.json.journal";
  const std::string text = Slurp(journal);
  REQUIRE(text.size() > 10);
  flatbench::testing::WriteAll(journal, text.substr(0, text.size() - 10));

  auto [code, err] = RunToEnd(args, tmp / "err2");
  INFO(err);
  REQUIRE(code == 0);
  CHECK(err.find("torn last record") != std::string::npos);
  int total = 0;
  const std::set<int> ran = PassesRun(err, &total);
  REQUIRE_FALSE(ran.empty());
  CHECK(*ran.begin() == 4);  // Pass 4 again: its record was torn.
  CHECK(ran.size() == 12 - 3);
  const auto doc = ReadJson(tmp / "r.json");
  std::set<double> orders;
  for (const auto& e : doc["benchmarks"])
    orders.insert(e["pass_order"].get<double>());
  CHECK(orders.size() == doc["benchmarks"].size());
}

// Only a torn last record is cut off and run again: a record lost before
// it, or the newline of the record before it changed, is damage, refused
// (65, naming the journal and the line) before any pass runs, and the
// journal is left as it is.
TEST_CASE("a journal damaged before its last record is refused with 65") {
  const std::string& data = SharedDataset();
  TempDir tmp;
  const auto args = SmallBench(data, tmp / "r.json");
  StopAfterPass(args, 4, SIGTERM, tmp / "err1", data);
  const std::string journal = tmp / "r.json.journal";
  const std::string intact = Slurp(journal);
  std::vector<size_t> starts = {0};  // Where each line starts.
  for (size_t i = 0; i + 1 < intact.size(); ++i) {
    if (intact[i] == '\n') starts.push_back(i + 1);
  }
  REQUIRE(starts.size() == 5);  // The header and 4 passes.
  std::string newline_changed = intact;
  newline_changed[starts[4] - 1] = 'x';  // The end of the 4th line.
  struct Damage {
    std::string what, text, error;
  };
  const std::vector<Damage> damages = {
      // sed -i 3d: pass 2's record deleted.
      {"a record deleted",
       intact.substr(0, starts[2]) + intact.substr(starts[3]),
       "line 3: record 3 where record 2 belongs"},
      {"a record repeated",
       intact.substr(0, starts[3]) + intact.substr(starts[2]),
       "line 4: record 2 where record 3 belongs"},
      {"a newline changed", newline_changed, "line 4: damaged record"},
  };
  for (const auto& d : damages) {
    CAPTURE(d.what);
    flatbench::testing::WriteAll(journal, d.text);
    auto [code, err] = RunToEnd(args, tmp / "err2");
    INFO(err);
    CHECK(code == 65);
    CHECK(err.find(journal + ": " + d.error) != std::string::npos);
    CHECK(err.find("bench [") == std::string::npos);  // Nothing ran.
    CHECK(Slurp(journal) == d.text);
  }
}

TEST_CASE("a journal of other flags or another dataset is refused with 65") {
  const std::string& data = SharedDataset();
  TempDir tmp;
  const auto args = SmallBench(data, tmp / "r.json");
  StopAfterPass(args, 2, SIGTERM, tmp / "err1", data);
  const std::string journal = tmp / "r.json.journal";
  const std::string before = Slurp(journal);

  auto other_flags = args;
  other_flags[std::find(args.begin(), args.end(), "--reads") - args.begin() +
              1] = "300";
  auto [code, err] = RunToEnd(other_flags, tmp / "err2");
  INFO(err);
  CHECK(code == 65);
  CHECK(err.find("--reads: 300 differs from the 200 of journal " + journal) !=
        std::string::npos);
  CHECK(flatbench::testing::Lines(err.substr(err.find("flatbench:"))) == 1);

  const std::string other = tmp / "other";
  auto gen = RunFlatbench(
      "gen --scale custom --accounts 2000 "
      "--slots-per-account 2 --quiet --backends arena "
      "--dir " +
      other);
  REQUIRE(gen.exit_code == 0);
  auto [code2, err2] = RunToEnd(SmallBench(other, tmp / "r.json"), tmp / "e3");
  INFO(err2);
  CHECK(code2 == 65);
  CHECK(err2.find("--dir: dataset " + other) != std::string::npos);
  CHECK(Slurp(journal) == before);  // Refused: the journal is untouched.

  // --fresh starts over, saying it removed the journal.
  auto fresh = args;
  fresh.push_back("--fresh");
  auto [code3, err3] = RunToEnd(fresh, tmp / "e4");
  INFO(err3);
  CHECK(code3 == 0);
  CHECK(err3.find("--fresh: removed the journal " + journal) !=
        std::string::npos);
  CHECK(err3.find("bench: resuming") == std::string::npos);
  CHECK(err3.find("bench [1/12]") != std::string::npos);
}

// The children of `parent` whose command line holds `word`.
std::vector<int> ChildrenOf(int parent, const std::string& word) {
  std::vector<int> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (!std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    if (ParentPid(pid) != parent) continue;
    std::string cmd = Slurp("/proc/" + pid + "/cmdline");
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (cmd.find(word) != std::string::npos) out.push_back(std::stoi(pid));
  }
  return out;
}

// gonogo itself is not stopped: its bench child alone dies by a signal, as
// a crash would. That is a failed child (70), never 128 + N (a stop of
// gonogo) nor a verdict.
TEST_CASE("a gonogo phase that crashes is a failed child, exit 70") {
  TempDir tmp;
  Command run({"gonogo", "--scale", "tiny", "--dir", tmp / "data", "--results",
               tmp / "res", "--backends", "arena", "--threads", "1", "--reads",
               "200", "--evict", "fadvise", "--repetitions", "1000"},
              tmp / "err");
  REQUIRE(run.pid() > 0);
  const bool reached =
      PollUntil([&] { return run.ErrHas("bench ["); }, kReachBound);
  INFO(run.Err());
  REQUIRE(reached);
  const std::vector<int> bench = ChildrenOf(run.pid(), " bench ");
  REQUIRE(bench.size() == 1);
  REQUIRE(kill(bench[0], SIGKILL) == 0);
  const int code = run.Wait(kStopBound);
  INFO(run.Err());
  CHECK(code == 70);
  CHECK(run.ErrHas("bench killed by signal " + std::to_string(SIGKILL)));
  // No report: the run is unfinished, for a rerun to resume.
  for (const auto& e : fs::directory_iterator(tmp / "res")) {
    CHECK_FALSE(fs::exists(e.path() / "report.md"));
    CHECK(Slurp(e.path() / "gonogo.json").find("\"finished\": false") !=
          std::string::npos);
  }
  CheckNothingRemains(tmp.path());
}

TEST_CASE("a stop signal to sweep stops its bench child; the rerun resumes") {
  TempDir tmp;
  const std::vector<std::string> args = {
      "sweep",      "--accounts",    "1000,2000", "--dir",   tmp / "sweep",
      "--backends", "arena",         "--threads", "1",       "--reads",
      "100",        "--repetitions", "1",         "--evict", "fadvise",
      "--no-device"};  // The device profile, a minute of I/O, is not at stake.
  // The test hook holds the first bench after one pass until a signal.
  Command first(args, tmp / "err1", {"FLATBENCH_TEST_HOLD_AFTER_PASS=1"});
  Interrupt(first, SIGTERM, "holding after pass 1", tmp.path());
  CHECK(first.ErrHas("in sweep [1/2] 1000 accounts: bench"));
  const std::string state = Slurp(tmp / "sweep/sweep.json");
  CHECK(state.find("\"finished\": false") != std::string::npos);

  Command rerun(args, tmp / "err2");
  const int code = rerun.Wait(kReachBound);
  INFO(rerun.Err());
  CHECK(code == 0);
  CHECK(Slurp(tmp / "sweep/sweep.json").find("\"finished\": true") !=
        std::string::npos);
}

TEST_CASE("a stop signal to bench stops the PostgreSQL server of its worker",
          "[postgres]") {
  TempDir tmp;
  const std::string data = tmp / "pg";
  Gen(data, "postgres");
  Command bench({"bench", "--dir", data, "--out", tmp / "r.json", "--modes",
                 "cold", "--kinds", "hit", "--threads", "1", "--reads", "200",
                 "--repetitions", "1000", "--evict", "fadvise"},
                tmp / "err");
  Interrupt(bench, SIGINT, "bench [", tmp.path());
  CHECK_FALSE(fs::exists(data + "/postgres/postmaster.pid"));
}

int main(int argc, char** argv) {
  bool postgres_only = false;
  for (int i = 1; i < argc; ++i) {
    postgres_only = postgres_only || std::string(argv[i]) == "[postgres]";
  }
  if (postgres_only && !fs::exists("/usr/lib/postgresql")) {
    std::fprintf(stderr, "no PostgreSQL server on this host\n");
    return 77;  // Meson: skipped.
  }
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  return flatbench::testing::RunTests(argc, argv);
}

TEST_CASE(
    "a stop signal to gen --jobs 2 leaves nothing partial; a rerun resumes") {
  TempDir tmp;
  const std::string dir = tmp / "ds";
  const std::vector<std::string> args = {
      "gen",        "--scale", "custom",
      "--accounts", "1000000", "--slots-per-account",
      "4",          "--jobs",  "2",
      "--backends", "arena",   "--dir",
      dir};
  {
    Command c(args, tmp / "gen.err");
    REQUIRE(c.pid() > 0);
    // A progress line (the builds are under way; the first comes after a
    // second), or, on a fast host, the build already done.
    const bool reached = PollUntil(
        [&] { return c.ErrHas("gen: ") || c.ErrHas("gen arena: done"); },
        kReachBound);
    INFO(c.Err());
    REQUIRE(reached);
    REQUIRE(kill(c.pid(), SIGINT) == 0);
    const int code = c.Wait(kStopBound);
    INFO(c.Err());
    // It may have finished just before the signal came.
    CHECK((code == 128 + SIGINT || code == 0));
    if (code != 0)
      CHECK(c.ErrHas("stopped by signal " + std::to_string(SIGINT)));
  }
  // Every sanitizer tree builds the arena: it alone is built here.
  CHECK(fs::exists(dir + "/arena") == fs::exists(dir + "/arena.complete"));
  CheckNothingRemains(dir);
  std::vector<std::string> rerun_args = args;
  rerun_args.push_back("--quiet");
  Command rerun(rerun_args, tmp / "rerun.err");
  const int code = rerun.Wait(kReachBound);
  INFO(rerun.Err());
  REQUIRE(code == 0);
  CHECK(fs::exists(dir + "/arena.complete"));
}
