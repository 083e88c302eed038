// ImportTsv: good dumps round-trip; bad lines are named by number and leave
// no output behind.

#include "arena/import.h"

#include <catch2/catch.hpp>
#include <string>

#include "arena/reader.h"
#include "arena/verify.h"
#include "common/hex.h"
#include "test/arena/test_util.h"

namespace flatbench::arena {
namespace {

const std::string kK1 = "0102030405060708090a0b0c0d0e0f1011121314";
const std::string kK2 = "0102030405060708090a0b0c0d0e0f1011121315";
const std::string kK3 = "ff02030405060708090a0b0c0d0e0f1011121314";

TEST_CASE("import builds an arena from a hex dump", "[arena][import]") {
  testing::TempDir dir;
  const std::string in = dir.File("dump.tsv");
  const std::string out = dir.File("out.arena");
  testing::WriteAll(in, kK1 + "\tdeadbeef\n" + kK2 + "\t\r\n" + kK3 + "\t00\n");
  BuildStats stats;
  Status st = ImportTsv(in, out, BuilderOptions{}, &stats);
  INFO(st.message());
  REQUIRE(st.ok());
  REQUIRE(stats.key_count == 3);
  auto reader = Reader::Open(out);
  REQUIRE(reader.ok());
  REQUIRE(reader.value()->key_width() == 20);
  std::string key;
  REQUIRE(FromHex(kK1, &key));
  bool found = false;
  std::string_view value;
  REQUIRE(reader.value()->Get(key, &found, &value).ok());
  REQUIRE(found);
  REQUIRE(value == "\xde\xad\xbe\xef");
  REQUIRE(FromHex(kK2, &key));
  REQUIRE(reader.value()->Get(key, &found, &value).ok());
  REQUIRE(found);
  REQUIRE(value.empty());
  VerifyReport report;
  REQUIRE(Verify(*reader.value(), &report).ok());
}

TEST_CASE("import rejects bad lines by number", "[arena][import]") {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::string ok1 = kK1 + "\t01\n";
  const auto c = GENERATE_REF(values<Case>({
      {ok1 + kK2 + "\t02\n" + kK1 + "\t03\n", ":3: key not ascending"},
      {ok1 + kK1 + "\t02\n", ":2: duplicate key"},
      {ok1 + "0102\t02\n", ":2: key width 2, expected 20"},
      {ok1 + kK2 + "\t0\n", ":2: value is not even-length hex"},
      {ok1 + kK2 + "1\t00\n", ":2: key is not even-length hex"},
      {ok1 + kK2 + "\tzz\n", ":2: value is not even-length hex"},
      {ok1 + "\n" + kK2 + "\t00\n", ":2: empty line"},
      {ok1 + kK2 + " 00\n", ":2: no tab between key and value"},
      {ok1 + kK2 + "\t" + std::string(2 * 4059, 'a') + "\n",
       ":2: value of 4059 bytes exceeds maximum 4058"},
      {"", ":1: no key/value lines"},
  }));
  CAPTURE(c.text.substr(0, 100));
  testing::TempDir dir;
  const std::string in = dir.File("dump.tsv");
  const std::string out = dir.File("out.arena");
  testing::WriteAll(in, c.text);
  Status st = ImportTsv(in, out, BuilderOptions{});
  REQUIRE(st.code() == Code::kCorruption);
  REQUIRE(st.message() == in + c.message);
  REQUIRE_FALSE(testing::Exists(out));
  REQUIRE_FALSE(testing::Exists(out + ".tmp"));
}

TEST_CASE("import refuses to overwrite and needs its input",
          "[arena][import]") {
  testing::TempDir dir;
  const std::string in = dir.File("dump.tsv");
  const std::string out = dir.File("out.arena");
  REQUIRE(ImportTsv(in, out, BuilderOptions{}).code() == Code::kMissingInput);
  REQUIRE_FALSE(testing::Exists(out));
  testing::WriteAll(in, kK1 + "\t01\n");
  testing::WriteAll(out, "precious");
  REQUIRE(ImportTsv(in, out, BuilderOptions{}).code() ==
          Code::kRefuseOverwrite);
  REQUIRE(testing::ReadAll(out) == "precious");
}

}  // namespace
}  // namespace flatbench::arena
