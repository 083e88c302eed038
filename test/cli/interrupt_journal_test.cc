// A bench journal damaged between runs, seen from the command line: a torn
// last line is detected, never read, and its pass run again; damage before
// the last record, other flags or another dataset are refused with 65.
#include <catch2/catch.hpp>

#include "test/cli/interrupt_util.h"

using namespace flatbench::testing::interrupt;
namespace fs = std::filesystem;
using flatbench::testing::TempDir;

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
