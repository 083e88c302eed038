// LMDB: the ordered walk against the dataset, its size check on truncated
// files and its checked lookup path. Built only with LMDB.
#include "baselines/lmdb_backend.h"
#include "baselines/lmdb_meta.h"
#include "baselines/lmdb_path.h"
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
