// RocksDB: the ordered walk against the dataset, and its own checksum walk
// (CheckIntegrity) on a corrupted data block. Built only with RocksDB.
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>

#include "baselines/rocksdb_options.h"
#include "test/baselines/store_test_util.h"

using namespace flatbench;
using namespace flatbench::datagen;
using namespace flatbench::dataset;
using namespace flatbench::store_test;
namespace fs = std::filesystem;

TEST_CASE("RocksDB: the ordered scan returns exactly the dataset") {
  testing::TempDir tmp;
  CheckScans("rocksdb", BuildOne(tmp, "rocksdb"));
}

TEST_CASE("RocksDB: a flipped byte in a data block fails VerifyChecksum") {
  testing::TempDir tmp;
  std::string dir = BuildOne(tmp, "rocksdb");
  {
    auto backend = backends::Open("rocksdb", dir, {});
    REQUIRE(backend.ok());
    REQUIRE(backend.value()->CheckIntegrity().ok());
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

  auto backend = backends::Open("rocksdb", dir, {});
  REQUIRE(backend.ok());
  Status st = backend.value()->CheckIntegrity().status();
  CHECK(st.code() == Code::kCorruption);
  CHECK(st.message().find(fs::path(account_sst).filename().string()) !=
        std::string::npos);
  // The scan reaches the same block and stops with corruption too.
  auto scan = backend.value()->OpenScan(Table::kAccount);
  REQUIRE(scan.ok());
  bool valid = true;
  std::string_view k, v;
  Status walk;
  while (walk.ok() && valid) walk = scan.value()->Next(&valid, &k, &v);
  CHECK(walk.code() == Code::kCorruption);
}
