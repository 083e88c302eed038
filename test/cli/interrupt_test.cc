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
#include "test/cli/interrupt_util.h"

using namespace flatbench::testing::interrupt;
namespace fs = std::filesystem;
using flatbench::testing::TempDir;

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
  // In memory: what is checked is which files remain, not durability, and
  // on disk the rerun's fsync of its 440 MiB waited minutes behind the
  // other writers of a busy disk.
  TempDir tmp(TempDir::Where::kMemory);
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
    // A table file in the arena's folder (its build under way; gen's first
    // progress line comes only after a second), or, on a fast host, the
    // build already done.
    const std::string arena = dir + "/arena";
    const bool reached = PollUntil(
        [&] {
          std::error_code ec;
          return (fs::exists(arena, ec) && !fs::is_empty(arena, ec)) ||
                 c.ErrHas("gen arena: done");
        },
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
