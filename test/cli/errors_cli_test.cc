// Errors a new user meets with damaged files and odd arguments: each is one
// line on stderr naming the file, key or argument at fault, with the code
// README's exit table gives, through the flatbench binary.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/hex.h"
#include "datagen/keys.h"
#include "test/cli/file_bytes.h"
#include "test/crafted_profile.h"
#include "test/run_command.h"

using flatbench::testing::CommandResult;
using flatbench::testing::Lines;
using flatbench::testing::ReadAll;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
namespace dg = flatbench::datagen;

using flatbench::testing::kPage;
using flatbench::testing::Load;
using flatbench::testing::PutByte;

using flatbench::testing::Built;

namespace {

std::string Gen(const TempDir& tmp, const std::string& backends) {
  const std::string dir = tmp / "ds";
  auto r = RunFlatbench("gen --scale tiny --quiet --backends " + backends +
                        " --dir " + dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return dir;
}

// One line on stderr holding every one of `parts`, nothing on stdout but
// verify's own progress.
void OneLine(const CommandResult& r, int code,
             const std::vector<std::string>& parts) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == code);
  CHECK(Lines(r.err) == 1);
  for (const auto& p : parts) CHECK(r.err.find(p) != std::string::npos);
}

std::string AccountKeyHex(uint64_t i) {
  return flatbench::ToHex(dg::View(dg::MakeAccountKey(i)));
}

// The record of LMDB database `name` in the main database's root leaf of
// the newer meta page (LMDB's MDB_meta after the 16-byte page header: the
// main MDB_db record at 88, whose root is at 40; the transaction id at
// 144). A leaf node's data follows its 8-byte header and its key.
uint64_t RecordOffset(const std::string& file, const std::string& name) {
  const uint64_t meta =
      Load<uint64_t>(file, kPage + 144) > Load<uint64_t>(file, 144) ? kPage : 0;
  const uint64_t root = Load<uint64_t>(file, meta + 88 + 40);
  const std::string page = file.substr(root * kPage, kPage);
  const size_t at = page.find(name);
  REQUIRE(at != std::string::npos);
  return root * kPage + at + name.size();
}

}  // namespace

TEST_CASE("a flipped byte in an LMDB branch page's number: verify and get 65",
          "[lmdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  const std::string dir = Gen(tmp, "lmdb");
  const std::string mdb = dir + "/lmdb/data.mdb";
  const std::string original = ReadAll(mdb);
  // The account tree's root, a branch page (depth 2 at tiny): every
  // account key's lookup goes through it.
  const uint64_t record = RecordOffset(original, "account");
  REQUIRE(Load<uint16_t>(original, record + 6) >= 2);  // md_depth
  const uint64_t root = Load<uint64_t>(original, record + 40);
  REQUIRE(Load<uint16_t>(original, root * kPage + 10) == 0x01);  // P_BRANCH
  const uint64_t at = root * kPage + GENERATE(0, 1, 5);
  CAPTURE(root, at);
  PutByte(mdb, at, static_cast<char>(original[at] ^ 0x09));
  const std::string page =
      mdb + ": page " + std::to_string(root) + " (a branch";

  // LMDB itself never reads a page's own number: its lookups still answer.
  auto r = RunFlatbench("get --no-verify --dir " + dir +
                        " --backend lmdb --key " + AccountKeyHex(17));
  CHECK(r.exit_code == 0);
  r = RunFlatbench("get --dir " + dir + " --backend lmdb --key " +
                   AccountKeyHex(17));
  OneLine(r, 65, {page, "its header names page "});
  r = RunFlatbench("verify --quiet --dir " + dir);
  OneLine(r, 65, {"verify lmdb: ", page, "its header names page "});
  CHECK(r.err.find("Assertion") == std::string::npos);
}

TEST_CASE("a flipped bit in LMDB meta page 0's transaction id: 65 from both",
          "[lmdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  const std::string dir = Gen(tmp, "lmdb");
  const std::string mdb = dir + "/lmdb/data.mdb";
  const std::string original = ReadAll(mdb);
  // One commit at tiny: meta page 0 holds the empty environment
  // (transaction 0), page 1 the data (transaction 1).
  REQUIRE(Load<uint64_t>(original, 144) == 0);
  REQUIRE(Load<uint64_t>(original, kPage + 144) == 1);
  const int mask = GENERATE(0x01, 0x02, 0x80);
  CAPTURE(mask);
  PutByte(mdb, 144, static_cast<char>(mask));
  auto get = RunFlatbench("get --dir " + dir + " --backend lmdb --key " +
                          AccountKeyHex(17));
  auto verify = RunFlatbench("verify --quiet --dir " + dir);
  if (mask == 0x01) {
    // Both pages then say transaction 1: get's walk would read page 0 (the
    // empty environment) and LMDB page 1. The parity names it.
    const std::string why =
        mdb +
        ": meta page 0 holds transaction 1, but LMDB writes even "
        "transactions to page 0";
    OneLine(get, 65, {why});
    OneLine(verify, 65, {"verify lmdb: ", why});
  } else {
    // Page 0 is then the newer, for LMDB too: the empty environment.
    OneLine(get, 65, {mdb, "no database 'account' in it"});
    OneLine(verify, 65, {"verify lmdb: ", mdb, "no database 'account'"});
  }
}

TEST_CASE("a zeroed LMDB leaf: one line of flatbench's, never LMDB's assertion",
          "[lmdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  const std::string dir = Gen(tmp, "lmdb");
  const std::string mdb = dir + "/lmdb/data.mdb";
  const std::string original = ReadAll(mdb);
  // The leaf holding account 4321's pair.
  const auto key = dg::MakeAccountKey(4321);
  const size_t at = original.find(std::string(dg::View(key)));
  REQUIRE(at != std::string::npos);
  const uint64_t leaf = at / kPage;
  {
    std::fstream f(mdb, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(leaf * kPage));
    f << std::string(kPage, '\0');
    REQUIRE(f);
  }
  const std::string hex = flatbench::ToHex(dg::View(key));
  // Through LMDB alone: its own check stops on the page.
  auto r = RunFlatbench("get --no-verify --dir " + dir +
                        " --backend lmdb --key " + hex);
  INFO(r.err);
  CHECK(r.exit_code == 65);
  CHECK(Lines(r.err) == 1);
  CHECK(r.err.rfind("flatbench: ", 0) == 0);
  CHECK(r.err.find(mdb) != std::string::npos);
  // The page walk names the page first.
  r = RunFlatbench("get --dir " + dir + " --backend lmdb --key " + hex);
  OneLine(r, 65, {mdb + ": page " + std::to_string(leaf)});
  r = RunFlatbench("verify --quiet --dir " + dir);
  OneLine(r, 65, {"verify lmdb: ", mdb + ": page " + std::to_string(leaf)});
  // A quick verify reads through LMDB only.
  r = RunFlatbench("verify --quiet --quick --samples 10000 --dir " + dir);
  OneLine(r, 65, {"verify lmdb", mdb});
  CHECK(r.err.rfind("flatbench: ", 0) == 0);
}

TEST_CASE("a damaged SQLite file: integrity_check's text as one line") {
  if (!Built("sqlite")) return;
  TempDir tmp(TempDir::Where::kMemory);
  const std::string dir = Gen(tmp, "sqlite");
  std::string file;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/sqlite")) {
    if (e.path().extension() == ".db" || e.path().extension() == ".sqlite") {
      file = e.path().string();
    }
  }
  REQUIRE_FALSE(file.empty());
  const std::string original = ReadAll(file);
  const uint64_t pages = original.size() / kPage;
  REQUIRE(pages > 20);
  // Every fifth B-tree leaf page (SQLite's page types 0x0d and 0x0a) keeps
  // its 8-byte header and loses its cells: the open, which reads interior
  // pages, passes, and integrity_check has many problems to say.
  std::string damaged = original;
  int zeroed = 0;
  for (uint64_t p = 2; p < pages; p += 5) {
    const char type = damaged[p * kPage];
    if (type != 0x0d && type != 0x0a) continue;
    std::memset(damaged.data() + p * kPage + 8, 0, kPage - 8);
    ++zeroed;
  }
  REQUIRE(zeroed > 10);
  { std::ofstream(file, std::ios::binary) << damaged; }
  auto r = RunFlatbench("verify --quiet --dir " + dir);
  OneLine(r, 65, {"verify sqlite: " + file + ": integrity_check: ", " more"});
}

TEST_CASE("a wrong fingerprint in dataset.json names dataset.json") {
  TempDir tmp(TempDir::Where::kMemory);
  const std::string dir = Gen(tmp, "arena");
  const std::string identity = dir + "/dataset.json";
  auto j = nlohmann::json::parse(ReadAll(identity));
  const std::string right = j["fingerprint"];
  j["fingerprint"] = "0123456789abcdef";
  { std::ofstream(identity) << j.dump(2); }
  const std::string why = identity +
                          ": fingerprint 0123456789abcdef differs from " +
                          right + ", which " + dir + "/arena.complete recorded";
  OneLine(RunFlatbench("get --dir " + dir + " --key " + AccountKeyHex(17)), 65,
          {why});
  OneLine(RunFlatbench("verify --quiet --dir " + dir), 65, {why});
}

TEST_CASE("a wrong fingerprint in one marker names that marker", "[lmdb]") {
  TempDir tmp(TempDir::Where::kMemory);
  const std::string dir = Gen(tmp, "arena,lmdb");
  const std::string marker = dir + "/lmdb.complete";
  auto j = nlohmann::json::parse(ReadAll(marker));
  const std::string right = j["fingerprint"];
  j["fingerprint"] = "0123456789abcdef";
  { std::ofstream(marker) << j.dump(2); }
  OneLine(RunFlatbench("get --dir " + dir + " --backend lmdb --key " +
                       AccountKeyHex(17)),
          65,
          {marker + ": fingerprint 0123456789abcdef differs from " + right +
           " in " + dir + "/dataset.json and " + dir + "/arena.complete"});
  // The other backend is unaffected.
  CHECK(RunFlatbench("get --dir " + dir + " --key " + AccountKeyHex(17))
            .exit_code == 0);
}

TEST_CASE("a --file that is not a regular file is bad data, 65") {
  const std::string key = AccountKeyHex(17);
  const std::vector<std::string> commands = {
      "get --file /dev/null --key " + key, "info --file /dev/null",
      "verify --file /dev/null"};
  for (const std::string& cmd : commands) {
    CAPTURE(cmd);
    OneLine(RunFlatbench(cmd), 65, {"/dev/null: not a regular file"});
  }
  TempDir tmp;
  OneLine(RunFlatbench("get --file " + tmp.path() + " --key " + key), 65,
          {tmp.path() + ": not a regular file"});
}

TEST_CASE("bench refuses another device profile format naming file and key") {
  TempDir tmp;
  auto profile = flatbench::testing::CraftedDeviceProfile();
  profile["flatbench_device_profile"] = 2;
  std::ofstream(tmp / "p.json") << profile.dump();
  auto r =
      RunFlatbench("bench --dir " + (tmp / "ds") + " --out " +
                   (tmp / "r.json") + " --device-profile " + (tmp / "p.json"));
  OneLine(r, 65,
          {"device profile " + (tmp / "p.json") +
           ": \"flatbench_device_profile\": format 2, this build reads "
           "format 1"});
  CHECK_FALSE(std::filesystem::exists(tmp / "r.json"));
}
