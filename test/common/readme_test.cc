// README.md's first screen, for a newcomer: what flatbench answers, the two
// commands, where the report goes and what a valid verdict needs, all in
// its first 40 lines and without a compiler flag; then the code's layout
// and where to read more; and every document it links to exists.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string Doc(const std::string& name) {
  std::ifstream in(std::string(FLATBENCH_SOURCE_ROOT) + "/" + name);
  REQUIRE(in.good());
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string FirstLines(const std::string& text, size_t n) {
  std::string out;
  const std::vector<std::string> lines = Lines(text);
  for (size_t i = 0; i < lines.size() && i < n; ++i) out += lines[i] + "\n";
  return out;
}

TEST_CASE("README's first 40 lines answer a newcomer") {
  const std::string first = FirstLines(Doc("README.md"), 40);
  CAPTURE(first);
  for (const char* needed :
       {"RocksDB", "LMDB", "arena",                      // the question
        "./flatbench.sh gonogo", "./flatbench.sh test",  // the two commands
        "report.html", "results/",                       // where it goes
        "--scale full", "hardware threads", "GB free",   // a valid verdict
        "./flatbench.sh gonogo --plan --scale full", "INCONCLUSIVE"}) {
    CAPTURE(needed);
    CHECK(first.find(needed) != std::string::npos);
  }
  // No compiler or build flag: -O2, -Og, -g1, -Dunity=on, -fno-..., -W...
  const std::regex flag(R"((^|[\s`(])-(O[0-3gs]?|g[0-3]?|D\w|f\w|W\w))");
  for (const std::string& line : Lines(first)) {
    CAPTURE(line);
    CHECK_FALSE(std::regex_search(line, flag));
  }
}

TEST_CASE("README then gives the code's layout and where to read more") {
  const std::vector<std::string> lines = Lines(Doc("README.md"));
  std::vector<std::string> headings;
  for (const std::string& line : lines) {
    if (line.rfind("## ", 0) == 0) headings.push_back(line);
  }
  REQUIRE(headings.size() >= 6);
  CHECK(headings[3] == "## The code");
  CHECK(headings[4] == "## Where to read more");
}

TEST_CASE("every document README links to exists") {
  const std::string readme = Doc("README.md");
  const std::regex link(R"(\]\(([^)#:]+)\))");
  int links = 0;
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), link);
       it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1];
    CAPTURE(target);
    CHECK(std::filesystem::exists(std::string(FLATBENCH_SOURCE_ROOT) + "/" +
                                  target));
    ++links;
  }
  CHECK(links >= 5);
  // What moved out of README lives beside what it describes.
  CHECK(Doc("TESTING.md").find("./flatbench.sh test") != std::string::npos);
  CHECK(Doc("baselines/POSTGRES.md").find("pg_ctl") != std::string::npos);
}

}  // namespace
