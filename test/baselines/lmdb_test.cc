// LMDB: the ordered walk against the dataset, its size check on truncated
// files, its checked lookup path and the whole-tree check verify runs.
// Built only with LMDB.
#include <cstring>
#include <vector>

#include "baselines/lmdb_backend.h"
#include "baselines/lmdb_meta.h"
#include "baselines/lmdb_path.h"
#include "common/rng.h"
#include "test/baselines/store_test_util.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
using namespace flatbench::store_test;
namespace fs = std::filesystem;

TEST_CASE("LMDB: the ordered scan returns exactly the dataset") {
  testing::TempDir tmp;
  CheckScans("lmdb", BuildOne(tmp, "lmdb"));
}

TEST_CASE("LMDB: a data.mdb shorter than its meta pages claim is refused") {
  testing::TempDir tmp;
  std::string dir = BuildOne(tmp, "lmdb");
  auto meta = baselines::CheckLmdbDataFile(dir + "/data.mdb");
  REQUIRE(meta.ok());
  const uint64_t psize = meta->page_size;
  const uint64_t needed = meta->needed_bytes;
  CHECK(meta->file_bytes >= needed);
  REQUIRE(needed > 4 * psize);

  // Zero length, inside each meta page, between them, inside the data,
  // one page short, one byte short.
  for (uint64_t at : {uint64_t{0}, uint64_t{100}, psize - 1, psize, psize + 100,
                      2 * psize, needed / 2, needed - psize, needed - 1}) {
    CAPTURE(at);
    std::string copy = tmp / "copy";
    fs::remove_all(copy);
    fs::create_directories(copy);
    fs::copy_file(dir + "/data.mdb", copy + "/data.mdb");
    fs::resize_file(copy + "/data.mdb", at);
    auto checked = baselines::CheckLmdbDataFile(copy + "/data.mdb");
    REQUIRE_FALSE(checked.ok());
    CHECK(checked.status().code() == Code::kCorruption);
    const std::string& msg = checked.status().message();
    CHECK(msg.find(copy + "/data.mdb: " + std::to_string(at) + " bytes") == 0);
    if (at >= 2 * psize) {
      CHECK(msg.find("expected at least " + std::to_string(needed)) !=
            std::string::npos);
    }
    auto opened = baselines::OpenLmdb(copy, {});
    CHECK(opened.status().code() == Code::kCorruption);
  }
}

TEST_CASE("LMDB: the checked lookup walk finds every pair and no other key") {
  testing::TempDir tmp;
  const std::string dir = BuildOne(tmp, "lmdb");
  const std::string path = dir + "/data.mdb";
  auto backend = backends::Open("lmdb", dir, {});
  REQUIRE(backend.ok());
  for (int t = 0; t < kNumTables; ++t) {
    const Table table = static_cast<Table>(t);
    CAPTURE(TableName(table));
    auto scan = backend.value()->OpenScan(table);
    REQUIRE(scan.ok());
    uint64_t pairs = 0;
    std::string last;
    for (;;) {
      bool valid = false;
      std::string_view k, v;
      REQUIRE(scan.value()->Next(&valid, &k, &v).ok());
      if (!valid) break;
      ++pairs;
      auto hit = baselines::CheckedLmdbLookup(path, TableName(table), k,
                                              KeySize(table));
      INFO(hit.status().message());
      REQUIRE(hit.ok());
      CHECK(hit->found);
      CHECK(hit->value == v);
      CHECK(hit->pages >= 3);  // Meta, main database, the table's tree.
      // The key one below this one (last byte less one) is absent unless
      // it is the previous key.
      std::string below(k);
      const bool has_below = below.back() != '\0';
      if (has_below) --below.back();
      const bool previous = below == last;
      last.assign(k);
      if (!has_below || previous) continue;
      auto miss = baselines::CheckedLmdbLookup(path, TableName(table), below,
                                               KeySize(table));
      REQUIRE(miss.ok());
      CHECK_FALSE(miss->found);
    }
    CHECK(pairs == (t == 0 ? 3000u : 9000u));
  }
  auto absent = baselines::CheckedLmdbLookup(path, "code", "k", 1);
  CHECK(absent.status().code() == Code::kCorruption);
  CHECK(absent.status().message() == path + ": no database 'code' in it");
}

TEST_CASE("LMDB: a meta page that is not LMDB's is refused before mapping") {
  testing::TempDir tmp;
  std::string dir = BuildOne(tmp, "lmdb");
  const uint64_t offset = GENERATE(16, 40);  // Magic, page size.
  CAPTURE(offset);
  FlipByte(dir + "/data.mdb", offset);
  auto checked = baselines::CheckLmdbDataFile(dir + "/data.mdb");
  CHECK(checked.status().code() == Code::kCorruption);
  CHECK(baselines::OpenLmdb(dir, {}).status().code() == Code::kCorruption);
}

namespace {

std::vector<baselines::LmdbTreeSpec> BothTables() {
  return {{"account", KeySize(Table::kAccount)},
          {"storage", KeySize(Table::kStorage)}};
}

}  // namespace

TEST_CASE("LMDB: the whole-tree check refuses what some key's lookup refuses") {
  testing::TempDir tmp;
  const std::string dir = BuildOne(tmp, "lmdb");
  const std::string path = dir + "/data.mdb";
  auto clean = baselines::CheckLmdbTrees(path, BothTables());
  INFO(clean.status().message());
  REQUIRE(clean.ok());
  const uint64_t pages = fs::file_size(path) / 4096;
  CHECK(clean.value() > 2);
  CHECK(clean.value() <= pages);
  auto backend = backends::Open("lmdb", dir, {});
  REQUIRE(backend.ok());
  CHECK(backend.value()->CheckIntegrity().ok());
  const std::string original = testing::ReadAll(path);

  // A seeded sample of single-byte flips in the pages the trees use: when
  // the whole-tree check passes, the lookup of every key of both tables
  // must pass its walk too (it may answer another value: LMDB keeps no
  // checksums of keys and values).
  SplitMix64 rng(20261202);
  int refused = 0, passed = 0;
  for (int n = 0; n < 24; ++n) {
    const uint64_t page = 2 + rng.Below(pages - 2);
    const uint64_t at =
        page * 4096 + (n % 2 == 0 ? rng.Below(64) : rng.Below(4096));
    const char mask = static_cast<char>(1 + rng.Below(255));
    CAPTURE(page, at, static_cast<int>(mask));
    std::string damaged = original;
    damaged[at] ^= mask;
    { std::ofstream(path, std::ios::binary) << damaged; }
    auto trees = baselines::CheckLmdbTrees(path, BothTables());
    if (!trees.ok()) {
      ++refused;
      CHECK(trees.status().code() == Code::kCorruption);
      CHECK(trees.status().message().rfind(path + ": ", 0) == 0);
      continue;
    }
    ++passed;
    for (int t = 0; t < kNumTables; ++t) {
      const Table table = static_cast<Table>(t);
      for (const auto& [key, value] : Model().pairs[t]) {
        auto hit = baselines::CheckedLmdbLookup(path, TableName(table), key,
                                                KeySize(table));
        INFO(hit.status().message());
        REQUIRE(hit.ok());
      }
    }
  }
  CAPTURE(refused, passed);
  CHECK(refused > 0);
  CHECK(passed > 0);
  { std::ofstream(path, std::ios::binary) << original; }
}

TEST_CASE("LMDB: the whole-tree check names a branch page's wrong number") {
  testing::TempDir tmp;
  const std::string dir = BuildOne(tmp, "lmdb");
  const std::string path = dir + "/data.mdb";
  const std::string original = testing::ReadAll(path);
  // Every branch page: a flipped bit in its own page number.
  int branches = 0;
  for (uint64_t page = 2; page < original.size() / 4096; ++page) {
    uint16_t flags;
    std::memcpy(&flags, original.data() + page * 4096 + 10, 2);
    if (flags != 0x01) continue;  // LMDB's P_BRANCH
    ++branches;
    CAPTURE(page);
    std::string damaged = original;
    damaged[page * 4096 + 4] ^= 0x09;
    { std::ofstream(path, std::ios::binary) << damaged; }
    auto trees = baselines::CheckLmdbTrees(path, BothTables());
    REQUIRE_FALSE(trees.ok());
    const std::string& m = trees.status().message();
    CHECK(m.rfind(path + ": page " + std::to_string(page) +
                      " (a branch in database '",
                  0) == 0);
    CHECK(m.find("): its header names page ") != std::string::npos);
  }
  CHECK(branches >= 2);  // Both tables' roots at least.
  { std::ofstream(path, std::ios::binary) << original; }
}

TEST_CASE("LMDB: a meta page's transaction id of the wrong parity is refused") {
  testing::TempDir tmp;
  const std::string dir = BuildOne(tmp, "lmdb");
  const std::string path = dir + "/data.mdb";
  REQUIRE(baselines::CheckLmdbDataFile(path).ok());
  // Meta page 0 holds transaction 0, page 1 transaction 1 (one commit).
  FlipByte(path, 144);  // Low byte of page 0's id: 0 xor 0x5a, even.
  auto meta = baselines::CheckLmdbDataFile(path);
  REQUIRE(meta.ok());  // Even: LMDB and the walk both read page 0 now...
  CHECK(meta->meta_page == 0);
  auto trees = baselines::CheckLmdbTrees(path, BothTables());
  CHECK(trees.status().message() ==
        path + ": no database 'account' in it");  // ...the empty one.
  FlipByte(path, 144);
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(144);
  f.put(1);
  f.close();
  meta = baselines::CheckLmdbDataFile(path);
  CHECK(meta.status().message() ==
        path +
            ": meta page 0 holds transaction 1, but LMDB writes even "
            "transactions to page 0 (meta page 1 holds 1)");
  CHECK(baselines::OpenLmdb(dir, {}).status().code() == Code::kCorruption);
}
