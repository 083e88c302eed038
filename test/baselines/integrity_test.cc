// The baselines' integrity paths: ordered scans, RocksDB's checksum walk on
// a corrupted data block, LMDB's size check on truncated files and its
// checked lookup path.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "baselines/table_scan.h"
#include "datagen/check.h"
#include "datagen/dataset.h"
#include "datagen/registry.h"
#include "flatbench_config.h"
#include "test/datagen/collect_sink.h"
#include "test/temp_dir.h"
#if FLATBENCH_HAVE_ROCKSDB
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>

#include "baselines/rocksdb_backend.h"
#include "baselines/rocksdb_options.h"
#endif
#if FLATBENCH_HAVE_LMDB
#include "baselines/lmdb_backend.h"
#include "baselines/lmdb_meta.h"
#include "baselines/lmdb_path.h"
#endif

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
namespace fs = std::filesystem;

namespace {

Spec SmallSpec() { return MakeSpec("custom", 3000, 3, 5).value(); }

// Builds `backend` for SmallSpec() under `tmp`; returns its folder.
[[maybe_unused]] std::string BuildOne(const testing::TempDir& tmp,
                                      const std::string& backend) {
  GenOptions o;
  o.dir = tmp / "ds";
  o.spec = SmallSpec();
  o.backends = {backend};
  o.progress = false;
  auto built = Generate(o, datagen::NewLoader);
  REQUIRE(built.ok());
  return o.dir + "/" + backend;
}

[[maybe_unused]] void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(f);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5a));
  REQUIRE(f);
}

// Checks a backend's scans of both tables against the generator's stream,
// through CheckFull with a lookup of every key too.
using ScanMaker = std::function<Result<std::unique_ptr<baselines::TableScan>>(
    Backend&, Table)>;
[[maybe_unused]] void CheckScans(const std::string& name,
                                 const std::string& dir, ScanMaker make) {
  auto backend = datagen::OpenBackend(name, dir, {});
  REQUIRE(backend.ok());
  testing::CollectSink model;
  REQUIRE(GenerateSorted(SmallSpec(), &model).ok());
  for (int t = 0; t < kNumTables; ++t) {
    auto scan = make(*backend.value(), static_cast<Table>(t));
    REQUIRE(scan.ok());
    for (const auto& [key, value] : model.pairs[t]) {
      bool valid = false;
      std::string_view k, v;
      REQUIRE(scan.value()->Next(&valid, &k, &v).ok());
      REQUIRE(valid);
      REQUIRE(k == key);
      REQUIRE(v == value);
    }
    bool valid = true;
    std::string_view k, v;
    REQUIRE(scan.value()->Next(&valid, &k, &v).ok());
    CHECK_FALSE(valid);
  }
  auto session = backend.value()->NewSession();
  REQUIRE(session.ok());
  FullCheckOptions o;
  o.progress = false;
  o.lookups = session.value().get();
  FullCheckReport report;
  ScanOpener opener = [&](Table t) -> Result<NextPairFn> {
    auto scan = make(*backend.value(), t);
    if (!scan.ok()) return scan.status();
    std::shared_ptr<baselines::TableScan> owned = std::move(scan).value();
    return NextPairFn(
        [owned](bool* valid, std::string_view* k, std::string_view* v) {
          return owned->Next(valid, k, v);
        });
  };
  REQUIRE(CheckFull(SmallSpec(), name, opener, o, &report).ok());
  CHECK(report.pairs[0] == 3000);
  CHECK(report.pairs[1] == 9000);
  CHECK(report.lookups == 12000);
}

}  // namespace

#if FLATBENCH_HAVE_ROCKSDB
TEST_CASE("RocksDB: the ordered scan returns exactly the dataset") {
  testing::TempDir tmp;
  CheckScans("rocksdb", BuildOne(tmp, "rocksdb"), baselines::NewRocksDbScan);
}

TEST_CASE("RocksDB: a flipped byte in a data block fails VerifyChecksum") {
  testing::TempDir tmp;
  std::string dir = BuildOne(tmp, "rocksdb");
  {
    auto backend = datagen::OpenBackend("rocksdb", dir, {});
    REQUIRE(backend.ok());
    REQUIRE(baselines::VerifyRocksDbChecksums(*backend.value()).ok());
  }
  // Data blocks come first in a block-based table; the account table's are
  // uncompressed blocks of at least block_size (4096) bytes but the last,
  // so the middle of its average block lies inside the first one.
  std::string account_sst;
  uint64_t offset = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".sst") continue;
    rocksdb::Options opts(baselines::RocksDbOptions(),
                          baselines::RocksTableOptions(Table::kAccount, false));
    rocksdb::SstFileReader reader(opts);
    REQUIRE(reader.Open(e.path().string()).ok());
    auto props = reader.GetTableProperties();
    // Ingested files name no column family; account keys are 20 bytes,
    // plus RocksDB's 8-byte internal footer.
    if (props->raw_key_size != props->num_entries * (kAccountKeySize + 8)) {
      continue;
    }
    REQUIRE(props->num_data_blocks > 1);
    account_sst = e.path().string();
    offset = props->data_size / props->num_data_blocks / 2;
  }
  REQUIRE_FALSE(account_sst.empty());
  REQUIRE(offset > 1000);
  FlipByte(account_sst, offset);

  auto backend = datagen::OpenBackend("rocksdb", dir, {});
  REQUIRE(backend.ok());
  Status st = baselines::VerifyRocksDbChecksums(*backend.value());
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.message().find(fs::path(account_sst).filename().string()) !=
        std::string::npos);
  // The scan reaches the same block and stops with corruption too.
  auto scan = baselines::NewRocksDbScan(*backend.value(), Table::kAccount);
  REQUIRE(scan.ok());
  bool valid = true;
  std::string_view k, v;
  Status walk;
  while (walk.ok() && valid) walk = scan.value()->Next(&valid, &k, &v);
  CHECK(walk.code() == Code::kCorruption);
}
#endif

#if FLATBENCH_HAVE_LMDB
TEST_CASE("LMDB: the ordered scan returns exactly the dataset") {
  testing::TempDir tmp;
  CheckScans("lmdb", BuildOne(tmp, "lmdb"), baselines::NewLmdbScan);
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
  auto backend = OpenBackend("lmdb", dir, {});
  REQUIRE(backend.ok());
  for (int t = 0; t < kNumTables; ++t) {
    const Table table = static_cast<Table>(t);
    CAPTURE(TableName(table));
    auto scan = baselines::NewLmdbScan(*backend.value(), table);
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
#endif
