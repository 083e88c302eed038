// The exit contract's one table (common/exit_codes.h): README.md's exit
// table equals it row for row, Status codes map into it, and which command
// documents which code.
#include "common/exit_codes.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "test/doc_table.h"

namespace flatbench {
namespace {

std::vector<std::vector<std::string>> ReadmeExitTable() {
  std::ifstream in(FLATBENCH_SOURCE_ROOT "/README.md");
  REQUIRE(in.good());
  std::string text((std::istreambuf_iterator<char>(in)), {});
  return testing::MarkdownTable(text, {"exit", "meaning", "commands"});
}

std::vector<std::string> RowCells(const ExitRow& row) {
  return {ExitCodeText(row), ExitMeaningText(row), std::string(row.commands)};
}

TEST_CASE("README's exit table is the contract's table, row for row") {
  const auto readme = ReadmeExitTable();
  REQUIRE_FALSE(readme.empty());
  std::vector<std::vector<std::string>> table;
  for (const ExitRow& row : kExitRows) table.push_back(RowCells(row));
  // Every README row is in the table...
  for (const auto& cells : readme) {
    CAPTURE(cells);
    CHECK(std::find(table.begin(), table.end(), cells) != table.end());
  }
  // ...every table row in README...
  for (const auto& cells : table) {
    CAPTURE(cells);
    CHECK(std::find(readme.begin(), readme.end(), cells) != readme.end());
  }
  // ...and in the same order.
  CHECK(readme == table);
}

TEST_CASE("every Status code exits with a code of the table") {
  for (Code c :
       {Code::kOk, Code::kNotFound, Code::kUsage, Code::kCorruption,
        Code::kNotOurFormat, Code::kVersionMismatch, Code::kMissingInput,
        Code::kRefuseOverwrite, Code::kIOError, Code::kChildFailed}) {
    CAPTURE(static_cast<int>(c));
    bool found = false;
    for (const ExitRow& row : kExitRows) {
      found = found || (row.code == ExitCodeFor(c) && !row.verdict &&
                        row.name == CodeMeaning(c));
    }
    CHECK(found);
  }
  // No two rows a command documents share a code, except success and GO.
  for (const char* command : {"gen", "get", "verify", "info", "import", "bench",
                              "report", "gonogo", "sweep", "device"}) {
    CAPTURE(command);
    std::set<int> codes;
    for (const ExitRow& row : kExitRows) {
      if (!RowApplies(row, command) || row.code == 0) continue;
      CHECK(codes.insert(row.code).second);
    }
  }
}

TEST_CASE("1 is NO-GO for report and gonogo, 'not found' for get alone") {
  CHECK(DocumentedExit("get", 1)->name == kExitNotFound.name);
  CHECK(DocumentedExit("report", 1)->name == kExitNoGo.name);
  CHECK(DocumentedExit("gonogo", 1)->name == kExitNoGo.name);
  CHECK(DocumentedExit("report", 2)->name == kExitInconclusive.name);
  for (const char* command :
       {"gen", "verify", "info", "import", "bench", "sweep", "device"}) {
    CAPTURE(command);
    CHECK(DocumentedExit(command, 1) == nullptr);
    CHECK(DocumentedExit(command, 2) == nullptr);
    CHECK(DocumentedExit(command, 65)->name == kExitCorrupt.name);
    CHECK(DocumentedExit(command, 130)->name == kExitStopped.name);
  }
  CHECK(DocumentedExit("get", 70) == nullptr);
  CHECK(DocumentedExit("gonogo", 70)->name == kExitChildFailed.name);
  CHECK(DocumentedExit("gen", 23) == nullptr);  // A sanitizer's choice.
  CHECK(DocumentedExit("gen", 128) == nullptr);
  CHECK(DocumentedExit("gen", 193) == nullptr);
}

TEST_CASE("--help's text lists a command's rows and no others") {
  const std::string get = ExitCodesHelp("get");
  CHECK(get.find("  1       not found (the key is absent)\n") !=
        std::string::npos);
  CHECK(get.find("NO-GO") == std::string::npos);
  const std::string gonogo = ExitCodesHelp("gonogo");
  CHECK(gonogo.find("NO-GO") != std::string::npos);
  CHECK(gonogo.find("not found") == std::string::npos);
  CHECK(gonogo.find("  70      a child process failed") != std::string::npos);
  const std::string all = ExitCodesHelp("");
  for (const ExitRow& row : kExitRows) {
    CHECK(all.find(ExitMeaningText(row)) != std::string::npos);
  }
}

}  // namespace
}  // namespace flatbench
