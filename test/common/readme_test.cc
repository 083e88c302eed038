// README.md's first screen, for a newcomer: what flatbench answers, the two
// commands, where the report goes and what a valid verdict needs, all in
// its first 40 lines and without a compiler flag; then the code's layout
// and where to read more; and every document it links to exists. Its code
// map names every top-level source folder, and no folder that is not there.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
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

// The code map: the fenced block under "## The code". Each entry starts in
// the first column with its folder ("arena/"); lines that start with a
// space continue the entry above. Returns each top-level folder with the
// folders its description names as its rooms ("verdict/": a word that ends
// in '/' followed by a space, comma or the line's end, never a file's path).
std::map<std::string, std::vector<std::string>> CodeMap(
    const std::string& readme) {
  const std::vector<std::string> lines = Lines(readme);
  auto at = std::find(lines.begin(), lines.end(), "## The code");
  REQUIRE(at != lines.end());
  at = std::find(at, lines.end(), "```");
  REQUIRE(at != lines.end());
  const std::regex entry(R"(^([a-z_][a-z0-9_]*)/\s)");
  const std::regex room(R"((?:^|[\s(])([a-z_][a-z0-9_]*)/(?=[\s,)]|$))");
  std::map<std::string, std::vector<std::string>> map;
  std::string current;
  for (++at; at != lines.end() && *at != "```"; ++at) {
    std::smatch m;
    std::string rest = *at;
    if (std::regex_search(*at, m, entry)) {
      current = m[1];
      map[current];
      rest = m.suffix();
    }
    REQUIRE_FALSE(current.empty());  // A first line that names no folder.
    for (auto it = std::sregex_iterator(rest.begin(), rest.end(), room);
         it != std::sregex_iterator(); ++it) {
      map[current].push_back((*it)[1]);
    }
  }
  REQUIRE(at != lines.end());  // The block is closed.
  return map;
}

// The repository's top-level source folders: those with a meson.build
// (build trees hold none; hidden folders are not sources).
std::set<std::string> SourceFolders() {
  std::set<std::string> out;
  for (const auto& e :
       std::filesystem::directory_iterator(FLATBENCH_SOURCE_ROOT)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name[0] != '.' &&
        std::filesystem::exists(e.path() / "meson.build")) {
      out.insert(name);
    }
  }
  return out;
}

TEST_CASE("README's code map names every source folder, and only those") {
  const auto map = CodeMap(Doc("README.md"));
  const std::set<std::string> folders = SourceFolders();
  REQUIRE(folders.size() >= 5);  // The source root was found.
  for (const std::string& folder : folders) {
    CAPTURE(folder);
    CHECK(map.count(folder) == 1);
  }
  const std::string root = FLATBENCH_SOURCE_ROOT;
  for (const auto& [folder, rooms] : map) {
    CAPTURE(folder);
    CHECK(std::filesystem::is_directory(root + "/" + folder));
    for (const std::string& inner : rooms) {
      CAPTURE(inner);
      CHECK(std::filesystem::is_directory(root + "/" + folder + "/" + inner));
    }
  }
  // The report's rooms are read from its continuation lines.
  REQUIRE(map.count("report") == 1);
  CHECK(map.at("report").size() == 3);
}

TEST_CASE("README names the aged shape outside the commands table") {
  const std::vector<std::string> lines = Lines(Doc("README.md"));
  // The prose: every line but the tables' rows.
  std::string prose;
  for (const std::string& line : lines) {
    if (line.rfind("|", 0) != 0) prose += line + "\n";
  }
  for (const char* needed :
       {"flatbench age", "flatbench merge", "gonogo --shape aged",
        "report FRESH.json AGED.json", "upkeep"}) {
    CAPTURE(needed);
    CHECK(prose.find(needed) != std::string::npos);
  }
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
