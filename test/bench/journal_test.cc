// A run's journal (bench/journal.h): records read back as written, a torn
// last line cut off and never read as data, damage before the last line
// and records out of sequence refused, a journal of other flags or another
// dataset refused naming what differs, and the gap limit.
#include "bench/journal.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "bench/run.h"
#include "common/results_ops.h"
#include "common/results_schema.h"
#include "test/bench/journal_fixture.h"
#include "test/bench/local_channel.h"
#include "test/bench/tiny_dataset.h"
#include "test/temp_dir.h"

namespace flatbench::bench {
namespace {

using journal_fixture::Header;
using journal_fixture::TwoSteps;
using nlohmann::json;

TEST_CASE("journal records read back as written", "[bench][journal]") {
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  auto w = JournalWriter::Create(path, Header());
  REQUIRE(w.ok());
  REQUIRE(w.value()->Pass(0, 1010, json::array({{{"name", "p0"}}})).ok());
  CHECK(JournalWriter::Create(path, Header()).status().code() ==
        Code::kRefuseOverwrite);
  auto s = ReadJournal(path);
  REQUIRE(s.ok());
  CHECK(s->torn_bytes == 0);
  CHECK(s->records == 2);
  CHECK(s->passes.size() == 1);
  CHECK(s->passes.at(0)[0]["name"] == "p0");
  CHECK(s->last == 1010);
  CHECK(s->header.request == Header().request);
  REQUIRE(s->header.schedule.size() == 1);
  REQUIRE(s->header.schedule[0].steps.size() == 2);
  CHECK(StepToJson(s->header.schedule[0].steps[1]) ==
        StepToJson(TwoSteps()[0].steps[1]));
}

TEST_CASE("a torn last line is cut off and its step runs again",
          "[bench][journal]") {
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  {
    auto w = JournalWriter::Create(path, Header());
    REQUIRE(w.ok());
    REQUIRE(w.value()->Pass(0, 1010, json::array({{{"name", "p0"}}})).ok());
  }
  const std::string intact = testing::ReadAll(path);
  const std::string line =
      JournalLine({{"type", "pass"},
                   {"seq", 2},
                   {"step", 1},
                   {"at", 1020},
                   {"entries", json::array({{{"name", "p1"}}})}});
  // Every cut of the last line short of its end, and a flipped byte in it.
  const size_t cut = GENERATE(1, 5, 30, 0);
  CAPTURE(cut);
  std::string torn = intact;
  if (cut == 0) {
    std::string bad = line;
    bad[bad.size() - 3] ^= 0x01;  // Inside the payload: checksum wrong.
    torn += bad;
  } else {
    torn += line.substr(0, line.size() - cut);
  }
  testing::WriteAll(path, torn);
  auto s = ReadJournal(path);
  REQUIRE(s.ok());
  CHECK(s->torn_bytes == torn.size() - intact.size());
  CHECK(s->passes.size() == 1);
  CHECK_FALSE(s->passes.count(1));
  CHECK(testing::ReadAll(path) == intact);  // Cut off, nothing else.
}

TEST_CASE("a damaged line before the last is refused", "[bench][journal]") {
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  {
    auto w = JournalWriter::Create(path, Header());
    REQUIRE(w.ok());
    REQUIRE(w.value()->Pass(0, 1010, json::array()).ok());
    REQUIRE(w.value()->Pass(1, 1020, json::array()).ok());
  }
  std::string text = testing::ReadAll(path);
  const size_t second = text.find('\n') + 1;
  text[second + 40] ^= 0x01;
  testing::WriteAll(path, text);
  auto s = ReadJournal(path);
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == Code::kCorruption);
  CHECK(s.status().message().find("line 2") != std::string::npos);
  CHECK(s.status().message().find("--fresh") != std::string::npos);
}

// The journal's lines, each with its newline.
std::vector<std::string> LinesOf(const std::string& text) {
  std::vector<std::string> out;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string::npos ? text.size() : nl + 1;
    out.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l;
  return out;
}

// The payload of journal line `l`, as JSON.
json PayloadOf(const std::string& l) {
  return json::parse(l.substr(l.find(' ', l.find(' ', 5) + 1) + 1));
}

// A header, then records 1 to 3: a pass, a resume, a pass.
std::vector<std::string> FourRecords(const std::string& path) {
  auto w = JournalWriter::Create(path, Header());
  REQUIRE(w.ok());
  REQUIRE(w.value()->Pass(0, 1010, json::array({{{"name", "p0"}}})).ok());
  REQUIRE(w.value()->Resume(Interruption{1010, 1100, 1, "p1"}).ok());
  REQUIRE(w.value()->Pass(1, 1110, json::array({{{"name", "p1"}}})).ok());
  const std::vector<std::string> lines = LinesOf(testing::ReadAll(path));
  REQUIRE(lines.size() == 4);
  return lines;
}

// A record lost from the middle of a journal (a line deleted) would have
// its step run again out of schedule order, its pass_order taken twice.
TEST_CASE("a record missing or repeated before the last is refused",
          "[bench][journal]") {
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  std::vector<std::string> lines = FourRecords(path);
  std::string expected;
  SECTION("a record deleted") {
    lines.erase(lines.begin() + 2);  // sed -i 3d
    expected = "line 3: record 3 where record 2 belongs: 1 record is missing";
  }
  SECTION("two records deleted") {
    lines.erase(lines.begin() + 1, lines.begin() + 3);
    expected = "line 2: record 3 where record 1 belongs: 2 records are";
  }
  SECTION("a record repeated") {
    lines.insert(lines.begin() + 2, lines[1]);
    expected = "line 3: record 1 where record 2 belongs: a record repeated";
  }
  SECTION("the last record repeated") {
    lines.push_back(lines.back());
    expected = "line 5: record 3 where record 4 belongs";
  }
  SECTION("two records swapped") {
    std::swap(lines[1], lines[2]);
    expected = "line 2: record 2 where record 1 belongs";
  }
  const std::string text = Joined(lines);
  testing::WriteAll(path, text);
  auto s = ReadJournal(path);
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == Code::kCorruption);
  CHECK_THAT(s.status().message(), Catch::StartsWith(path + ": " + expected));
  CHECK_THAT(s.status().message(), Catch::Contains("--fresh"));
  CHECK(testing::ReadAll(path) == text);  // Refused, never cut.
}

TEST_CASE("records read back in sequence, and appended after a reopen",
          "[bench][journal]") {
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  const std::vector<std::string> lines = FourRecords(path);
  for (size_t i = 0; i < lines.size(); ++i) {
    CAPTURE(i);
    CHECK(PayloadOf(lines[i])["seq"] == i);
  }
  // The last line deleted is a journal that stopped a record earlier.
  testing::WriteAll(path, lines[0] + lines[1] + lines[2]);
  auto s = ReadJournal(path);
  REQUIRE(s.ok());
  CHECK(s->records == 3);
  auto w = JournalWriter::Open(path, s.value());
  REQUIRE(w.ok());
  REQUIRE(w.value()->Pass(1, 1120, json::array({{{"name", "p1"}}})).ok());
  w.value().reset();
  auto again = ReadJournal(path);
  INFO(again.status().message());
  REQUIRE(again.ok());
  CHECK(again->records == 4);
  CHECK(again->order == std::vector<size_t>{0, 1});
  CHECK(again->interruptions.size() == 1);
}

TEST_CASE("a journal without record numbers is refused", "[bench][journal]") {
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  std::vector<std::string> lines = FourRecords(path);
  const std::string numbered_header = lines[0];
  // A format 1 journal: the same records, unnumbered.
  for (auto& l : lines) {
    json j = PayloadOf(l);
    j.erase("seq");
    if (j["type"] == "header") j["format"] = 1;
    l = JournalLine(j);
  }
  testing::WriteAll(path, Joined(lines));
  auto s = ReadJournal(path);
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == Code::kCorruption);
  CHECK_THAT(s.status().message(),
             Catch::StartsWith(path + ": line 1: journal format 1, this "
                                      "flatbench reads format 2 only"));
  CHECK_THAT(s.status().message(), Catch::Contains("--fresh"));

  // A numbered header followed by an unnumbered record.
  lines[0] = numbered_header;
  testing::WriteAll(path, Joined(lines));
  s = ReadJournal(path);
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == Code::kCorruption);
  CHECK_THAT(
      s.status().message(),
      Catch::StartsWith(path + ": line 2: record without a sequence number"));
}

// Only the last record can be torn. A newline changed or lost at the end
// of the record before it joins the two lines into one last line; that
// line holds more than one record, so it is damage, never cut off as a
// torn append (which would drop an intact record).
TEST_CASE("a changed newline before the last record is refused",
          "[bench][journal]") {
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  std::vector<std::string> lines = FourRecords(path);
  const std::string how = GENERATE("changed", "deleted", "changed, last torn");
  CAPTURE(how);
  std::string& third = lines[2];
  if (how == std::string("deleted")) {
    third.pop_back();
  } else {
    third.back() = 'x';
  }
  if (how == std::string("changed, last torn")) lines[3].resize(30);
  const std::string text = Joined(lines);
  testing::WriteAll(path, text);
  auto s = ReadJournal(path);
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == Code::kCorruption);
  CHECK_THAT(s.status().message(),
             Catch::StartsWith(path + ": line 3: damaged record"));
  CHECK(testing::ReadAll(path) == text);  // Nothing cut off.
}

// The last line's own newline changed: nothing follows it, so it may be an
// append cut short; only that record is dropped, and its step runs again.
TEST_CASE("a changed newline at the end of the last record is a torn append",
          "[bench][journal]") {
  testing::TempDir tmp;
  const std::string path = tmp / "r.json.journal";
  std::vector<std::string> lines = FourRecords(path);
  lines[3].back() = 'x';
  testing::WriteAll(path, Joined(lines));
  auto s = ReadJournal(path);
  REQUIRE(s.ok());
  CHECK(s->records == 3);
  CHECK(s->torn_bytes == lines[3].size());
  CHECK(testing::ReadAll(path) == lines[0] + lines[1] + lines[2]);
}

TEST_CASE("a journal of other flags or another dataset is refused",
          "[bench][journal]") {
  const JournalHeader j = Header();
  CHECK(CheckSameRun("J", j, Header()).ok());
  JournalHeader now = Header();
  SECTION("a flag") {
    now.request.reads = 300;
    Status st = CheckSameRun("J", j, now);
    CHECK(st.code() == Code::kCorruption);
    CHECK(st.message().find("--reads: 300 differs from the 200") !=
          std::string::npos);
  }
  SECTION("a flag the journal left at its default") {
    now.request.scans = 7;
    CHECK(CheckSameRun("J", j, now).message().find("--scans") !=
          std::string::npos);
  }
  SECTION("the dataset") {
    now.identity[std::string(results::kFingerprint.name)] = "beef";
    Status st = CheckSameRun("J", j, now);
    CHECK(st.code() == Code::kCorruption);
    CHECK(st.message().rfind("--dir: dataset", 0) == 0);
    CHECK(st.message().find("beef") != std::string::npos);
    CHECK(st.message().find("f00d") != std::string::npos);
  }
  SECTION("the build") {
    now.identity[std::string(results::kRevision.name)] = "def";
    CHECK(CheckSameRun("J", j, now)
              .message()
              .find(std::string(results::kRevision.name)) != std::string::npos);
  }
}

TEST_CASE("a gap longer than the limit is refused with both figures",
          "[bench][journal]") {
  JournalState s;
  s.last = 5000;
  CHECK(CheckGap("J", s, 5000 + results::kMaxInterruptionSeconds).ok());
  Status st = CheckGap("J", s, 5000 + results::kMaxInterruptionSeconds + 7200);
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.message().find("26 h") != std::string::npos);
  CHECK(st.message().find("24 h") != std::string::npos);
}

}  // namespace
}  // namespace flatbench::bench
