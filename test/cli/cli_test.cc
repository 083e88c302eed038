// The command-line contract: exit codes and one-line errors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "common/exit_codes.h"
#include "common/hex.h"
#include "datagen/keys.h"
#include "test/run_command.h"

using flatbench::testing::FlatbenchBin;
using flatbench::testing::Lines;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;

TEST_CASE("--help explains and exits 0") {
  auto r = RunFlatbench("--help");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("gen") != std::string::npos);
  CHECK(r.out.find("Exit codes") != std::string::npos);
  CHECK(RunFlatbench("gen --help").exit_code == 0);
}

TEST_CASE("every --help ends with its exit codes, from the one table") {
  auto r = RunFlatbench("--help");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(flatbench::ExitCodesHelp("")) != std::string::npos);
  for (const char* command : {"gen", "get", "verify", "info", "import", "bench",
                              "report", "gonogo", "sweep", "device"}) {
    CAPTURE(command);
    r = RunFlatbench(std::string(command) + " --help");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(flatbench::ExitCodesHelp(command)) != std::string::npos);
  }
  // get's 1 is "not found", never a verdict; gonogo's is NO-GO.
  CHECK(RunFlatbench("get --help").out.find("NO-GO") == std::string::npos);
  CHECK(RunFlatbench("gonogo --help").out.find("1       NO-GO") !=
        std::string::npos);
}

TEST_CASE("the shipped binary has no test hooks") {
  // flatbench_test reads them from its environment (cli/test_hooks.h);
  // flatbench knows no hook flag.
  CHECK(RunFlatbench("bench --dir d --corrupt-expectations").exit_code == 64);
  CHECK(RunFlatbench("sweep --dir d --accounts 1000 --stop-after-gen 1000")
            .exit_code == 64);
  CHECK(FlatbenchBin().find("flatbench_test") == std::string::npos);
}

TEST_CASE("usage errors exit 64 with one line naming the argument") {
  TempDir tmp;
  auto r = RunFlatbench("gen --dir " + (tmp / "d") + " --backends nosuchdb");
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("nosuchdb") != std::string::npos);
  CHECK(Lines(r.err) == 1);

  r = RunFlatbench("gen --dir " + (tmp / "d") + " --scale enormous");
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("enormous") != std::string::npos);

  r = RunFlatbench("frobnicate");
  CHECK(r.exit_code == 64);

  r = RunFlatbench("gen --scale tiny");  // --dir missing
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("--dir") != std::string::npos);
}

TEST_CASE("list flags: each item checked, none repeated, allowed ones named") {
  TempDir tmp;
  const std::string dir = tmp / "d";
  auto r = RunFlatbench("gen --dir " + dir + " --backends nosuchdb");
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("--backends") != std::string::npos);
  CHECK(r.err.find("arena+pread") != std::string::npos);  // What is allowed.

  r = RunFlatbench("gen --dir " + dir + " --backends arena,arena");
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("'arena' given twice") != std::string::npos);
  CHECK(Lines(r.err) == 1);

  // gonogo checks its flags before it measures, builds or writes anything.
  const std::string gonogo =
      "gonogo --scale tiny --dir " + dir + " --results " + (tmp / "res");
  r = RunFlatbench(gonogo + " --threads 1,8,8");
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("'8' given twice") != std::string::npos);
  r = RunFlatbench(gonogo + " --threads 1,2000");
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("--threads") != std::string::npos);
  CHECK(r.err.find("2000") != std::string::npos);
  r = RunFlatbench(gonogo + " --evict sometimes");
  CHECK(r.exit_code == 64);
  CHECK(r.err.find("sometimes") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir));
  CHECK_FALSE(std::filesystem::exists(tmp / "res"));
}

TEST_CASE("--dir and --file: exactly one of them") {
  TempDir tmp;
  for (const char* cmd : {"get --key 00", "verify", "info"}) {
    CAPTURE(cmd);
    auto r = RunFlatbench(cmd);
    CHECK(r.exit_code == 64);
    CHECK(r.err.find("--dir") != std::string::npos);
    CHECK(r.err.find("--file") != std::string::npos);
    CHECK(Lines(r.err) == 1);
    r = RunFlatbench(std::string(cmd) + " --dir " + (tmp / "d") + " --file " +
                     (tmp / "f"));
    CHECK(r.exit_code == 64);
  }
}

TEST_CASE("a missing dataset directory exits 66 naming it") {
  auto r = RunFlatbench("verify --dir /nonexistent/flatbench-ds");
  CHECK(r.exit_code == 66);
  CHECK(r.err.find("/nonexistent/flatbench-ds") != std::string::npos);
  CHECK(Lines(r.err) == 1);
  r = RunFlatbench("info --dir /nonexistent/flatbench-ds");
  CHECK(r.exit_code == 66);
}

TEST_CASE("gen, get, verify and info on a small dataset") {
  // Catch2 runs the case once per section; the dataset is built, verified
  // and described on the first run only, since no section changes it.
  static TempDir tmp(TempDir::Where::kMemory);
  static bool built = false;
  const std::string dir = tmp / "ds";
  flatbench::testing::CommandResult r;
  if (!built) {
    r = RunFlatbench(
        "gen --scale custom --accounts 2000 "
        "--slots-per-account 2 --quiet --dir " +
        dir);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("fingerprint") != std::string::npos);

    r = RunFlatbench("verify --samples 500 --dir " + dir);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("verify: ok") != std::string::npos);

    r = RunFlatbench("info --dir " + dir);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("accounts     2000") != std::string::npos);
    built = true;
  }

  SECTION("a present key prints its value as hex") {
    using namespace flatbench::datagen;
    std::string key = flatbench::ToHex(View(MakeAccountKey(17)));
    std::string value = flatbench::ToHex(
        MakeAccountValue(flatbench::dataset::kDefaultSeed, 17).view());
    r = RunFlatbench("get --dir " + dir + " --backend arena --key " + key);
    CHECK(r.exit_code == 0);
    CHECK(r.out == value + "\n");
  }
  SECTION("malformed hex key exits 64") {
    r = RunFlatbench("get --dir " + dir + " --backend arena --key zz");
    CHECK(r.exit_code == 64);
    CHECK(r.err.find("zz") != std::string::npos);
  }
  SECTION("a key of the wrong width exits 64") {
    r = RunFlatbench("get --dir " + dir + " --backend arena --key 00ff");
    CHECK(r.exit_code == 64);
  }
  SECTION("an absent key exits 1") {
    r = RunFlatbench("get --dir " + dir + " --backend arena --key " +
                     std::string(40, '0'));
    CHECK(r.exit_code == 1);
    CHECK(r.err.find("not found") != std::string::npos);
  }
  SECTION("a dataset of another scale is refused with 73 and kept") {
    r = RunFlatbench("gen --scale tiny --quiet --dir " + dir);
    CHECK(r.exit_code == 73);
    CHECK(r.err.find(dir) != std::string::npos);
    CHECK(r.err.find("--rebuild") != std::string::npos);
    CHECK(Lines(r.err) == 1);
    CHECK(RunFlatbench("verify --samples 100 --dir " + dir).exit_code == 0);
  }
}

TEST_CASE("gonogo runs every phase, then resumes without redoing them") {
  TempDir tmp;
  // Plumbing: every phase over every store, not figures. The fewest
  // accounts, reads and threads that run each phase (the file store's
  // files and the passes' evictions are most of its time).
  const std::string common =
      "gonogo --scale custom --accounts 500 "
      "--slots-per-account 2 --reads 100 "
      "--repetitions 1 --threads 1 --evict fadvise --dir " +
      (tmp / "ds") + " --results " + (tmp / "results");
  auto r = RunFlatbench(common);
  // Below the gate scale the verdict is INCONCLUSIVE, never GO or NO-GO.
  REQUIRE(r.exit_code == 2);
  CHECK(r.out.find("INCONCLUSIVE") != std::string::npos);
  CHECK(r.out.find("report.md") != std::string::npos);
  CHECK(r.err.find("] bench") != std::string::npos);

  // Leave the run unfinished after bench, as an interruption would.
  std::string dir;
  for (const auto& e : std::filesystem::directory_iterator(tmp / "results")) {
    dir = e.path().string();
  }
  REQUIRE_FALSE(dir.empty());
  CHECK(std::filesystem::exists(dir + "/report.html"));
  std::string state;
  {
    std::ifstream in(dir + "/gonogo.json");
    state.assign(std::istreambuf_iterator<char>(in), {});
  }
  // The verdict, from the report computed in gonogo's own process.
  CHECK(state.find("\"verdict\": \"INCONCLUSIVE\"") != std::string::npos);
  CHECK(state.find("\"report_exit_code\": 2") != std::string::npos);
  auto pos = state.find("\"finished\": true");
  REQUIRE(pos != std::string::npos);
  state.replace(pos, 16, "\"finished\": false");
  { std::ofstream(dir + "/gonogo.json") << state; }

  r = RunFlatbench(common);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("resuming " + dir) != std::string::npos);
  CHECK(r.err.find("gen: done earlier, skipped") != std::string::npos);
  CHECK(r.err.find("bench: done earlier, skipped") != std::string::npos);
}

TEST_CASE("gonogo refuses, with the figures, a run the disk cannot hold") {
  TempDir tmp;
  // 2 billion accounts x 1000 slots needs petabytes: refused before gen.
  auto r = RunFlatbench(
      "gonogo --scale custom --accounts 2000000000 "
      "--slots-per-account 1000 --dir " +
      (tmp / "ds") + " --results " + (tmp / "results"));
  CHECK(r.exit_code == 73);
  CHECK(r.err.find("not enough free disk") != std::string::npos);
  CHECK(r.err.find("needs") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp / "ds"));
  CHECK_FALSE(std::filesystem::exists(tmp / "results"));
}

TEST_CASE("gonogo --plan: a gated backend's read variant is gated too") {
  TempDir tmp;
  // Backends every build holds (the sanitizer trees have no reference
  // rows).
  auto r = RunFlatbench(
      "gonogo --plan --scale tiny --backends "
      "arena,arena+cache --dir " +
      (tmp / "ds") + " --results " + (tmp / "results"));
  REQUIRE(r.exit_code == 0);
  // The bench plan's table has a row per backend and mode:
  // "  backend  role  mode  passes ...".
  const std::string text = r.out + r.err;
  auto has_row = [&text](const std::string& backend, const std::string& role) {
    return std::regex_search(
        text, std::regex("\\n  " + backend + " +" + role + " +cold "));
  };
  CHECK(has_row("arena", "gated"));
  CHECK(has_row("arena\\+cache", "gated"));
  CHECK_FALSE(has_row("arena\\+cache", "reference"));
  // Nothing was built or run.
  CHECK_FALSE(std::filesystem::exists(tmp / "ds"));
}
