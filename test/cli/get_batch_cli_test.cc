// get --keys: a batch from a keys file, answered key by key in the file's
// order on every arena read path; a corrupt block fails only its own keys,
// each with one error line naming the file, table and key (exit 65).

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "arena/iterator.h"
#include "arena/reader.h"
#include "common/hex.h"
#include "datagen/keys.h"
#include "test/doc_table.h"
#include "test/run_command.h"
#include "test/temp_dir.h"

using flatbench::testing::Count;
using flatbench::testing::Lines;
using flatbench::testing::ReadAll;
using flatbench::testing::RunFlatbench;
using flatbench::testing::TempDir;
using flatbench::testing::WriteAll;

namespace {

struct BatchDataset {
  std::string dir;
  std::string account_file;
  std::vector<std::string> accounts;  // hex, each in its own block
  std::string storage;                // hex
  uint64_t bad_offset = 0;            // block of accounts[0]
};

// About 60 accounts a shard: two blocks each. Three account keys in three
// different blocks and one storage key.
BatchDataset MakeBatchDataset(const TempDir& tmp) {
  using namespace flatbench::arena;
  BatchDataset d;
  d.dir = tmp / "ds";
  REQUIRE(RunFlatbench("gen --scale custom --accounts 15000 "
                       "--slots-per-account 1 --backends arena --quiet --dir " +
                       d.dir)
              .exit_code == 0);
  d.account_file = d.dir + "/arena/account.arena";
  auto reader = Reader::Open(d.account_file);
  REQUIRE(reader.ok());
  std::vector<uint64_t> offsets;
  for (uint64_t counter = 0; d.accounts.size() < 3; ++counter) {
    REQUIRE(counter < 1000);
    const auto k = flatbench::datagen::MakeAccountKey(counter);
    const std::string raw(flatbench::datagen::View(k));
    const int shard = static_cast<unsigned char>(raw[0]);
    uint32_t block = 0;
    REQUIRE(reader.value()->SeekBlock(shard, raw, nullptr, &block).ok());
    const uint64_t offset = reader.value()->BlockOffset(shard, block);
    if (std::find(offsets.begin(), offsets.end(), offset) != offsets.end()) {
      continue;
    }
    offsets.push_back(offset);
    d.accounts.push_back(flatbench::ToHex(raw));
  }
  d.bad_offset = offsets[0];
  auto storage = Reader::Open(d.dir + "/arena/storage.arena");
  REQUIRE(storage.ok());
  Iterator it(*storage.value());
  it.SeekToFirst();
  REQUIRE(it.Valid());
  d.storage = flatbench::ToHex(it.key());
  return d;
}

// What single gets print for `hex` in `table`.
std::string SingleGet(const BatchDataset& d, const std::string& table,
                      const std::string& hex) {
  auto r = RunFlatbench("get --dir " + d.dir + " --table " + table + " --key " +
                        hex);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE(
    "get --keys answers a batch key by key, a corrupt block alone failing",
    "[batch]") {
  TempDir tmp;
  const BatchDataset d = MakeBatchDataset(tmp);
  std::string miss = d.accounts[1];
  miss[miss.size() - 1] = miss.back() == '0' ? '1' : '0';
  const std::string keys = tmp / "keys.txt";
  WriteAll(keys, "# a batch\n" + d.accounts[0] + "\n" + d.accounts[1] +
                     "\n\nstorage " + d.storage + "\n" + miss + "\n" +
                     d.accounts[2] + "\naccount " + d.accounts[1] + "\n");
  const std::string answers =
      "account " + d.accounts[0] + " " +
      SingleGet(d, "account", d.accounts[0]) + "account " + d.accounts[1] +
      " " + SingleGet(d, "account", d.accounts[1]) + "storage " + d.storage +
      " " + SingleGet(d, "storage", d.storage) + "account " + miss +
      " not-found\n" + "account " + d.accounts[2] + " " +
      SingleGet(d, "account", d.accounts[2]) + "account " + d.accounts[1] +
      " " + SingleGet(d, "account", d.accounts[1]);
  for (const char* backend :
       {"arena", "arena+pread", "arena+cache", "arena+direct"}) {
    CAPTURE(backend);
    auto r = RunFlatbench("get --dir " + d.dir + " --backend " + backend +
                          " --keys " + keys);
    if (r.exit_code == 74 && std::string(backend) == "arena+direct") continue;
    CHECK(r.exit_code == 1);  // one key not found
    CHECK(r.err.empty());
    CHECK(r.out == answers);
  }

  // The block of accounts[0] damaged: that key fails with its own line and
  // exit 65; every other key is still answered.
  std::string bytes = ReadAll(d.account_file);
  bytes[d.bad_offset + 40] ^= 0x01;
  WriteAll(d.account_file, bytes);
  const std::string rest = answers.substr(answers.find('\n') + 1);
  for (const char* backend :
       {"arena", "arena+pread", "arena+cache", "arena+direct"}) {
    CAPTURE(backend);
    auto r = RunFlatbench("get --dir " + d.dir + " --backend " + backend +
                          " --keys " + keys);
    if (r.exit_code == 74 && std::string(backend) == "arena+direct") continue;
    CHECK(r.exit_code == 65);
    CHECK(Lines(r.err) == 1);
    CHECK(Count(r.err, d.account_file) == 1);
    CHECK(Count(r.err, d.accounts[0]) == 1);
    CHECK(Count(r.err, "offset " + std::to_string(d.bad_offset)) == 1);
    CHECK(r.out == rest);
  }
}

TEST_CASE("get --keys refuses a bad keys file with the line at fault",
          "[batch]") {
  TempDir tmp;
  const std::string dir = tmp / "ds";
  REQUIRE(RunFlatbench("gen --scale custom --accounts 200 "
                       "--slots-per-account 1 --backends arena --quiet --dir " +
                       dir)
              .exit_code == 0);
  const std::string keys = tmp / "keys.txt";
  WriteAll(keys, std::string(40, 'a') + "\nnot-hex\n");
  auto r = RunFlatbench("get --dir " + dir + " --keys " + keys);
  CHECK(r.exit_code == 64);
  CHECK(Lines(r.err) == 1);
  CHECK(Count(r.err, keys + ":2") == 1);
  WriteAll(keys, "storage " + std::string(40, 'a') + "\n");
  r = RunFlatbench("get --dir " + dir + " --keys " + keys);
  CHECK(r.exit_code == 64);
  CHECK(Count(r.err, keys + ":1") == 1);
  r = RunFlatbench("get --dir " + dir + " --keys " + (tmp / "none.txt"));
  CHECK(r.exit_code == 66);
  CHECK(Count(r.err, tmp / "none.txt") == 1);
  r = RunFlatbench("get --dir " + dir + " --keys " + keys + " --key " +
                   std::string(40, 'a'));
  CHECK(r.exit_code == 64);
}
