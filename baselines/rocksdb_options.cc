#include "baselines/rocksdb_options.h"

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

namespace flatbench::baselines {

rocksdb::ColumnFamilyOptions RocksTableOptions(Table table,
                                               bool lazy_metadata) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewRibbonFilterPolicy(10));
  t.index_type = rocksdb::BlockBasedTableOptions::kBinarySearch;
  t.data_block_index_type =
      rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  t.cache_index_and_filter_blocks = lazy_metadata;
  rocksdb::ColumnFamilyOptions cf;
  size_t cache_bytes;
  if (table == Table::kAccount) {
    t.block_size = 4096;
    cf.compression = rocksdb::kNoCompression;
    cache_bytes = kRocksAccountCacheBytes;
  } else {
    t.block_size = 8000;
    cf.compression = rocksdb::kLZ4Compression;
    cache_bytes = kRocksStorageCacheBytes;
  }
  // One HyperClockCache per family; its entry-charge estimate is the block
  // size, since data blocks dominate what it holds.
  t.block_cache = rocksdb::HyperClockCacheOptions(cache_bytes, t.block_size)
                      .MakeSharedCache();
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  cf.bottommost_compression = cf.compression;
  return cf;
}

rocksdb::DBOptions RocksDbOptions() {
  rocksdb::DBOptions db;
  db.max_open_files = -1;
  db.advise_random_on_open = true;
  return db;
}

std::vector<rocksdb::ColumnFamilyDescriptor> RocksFamilies(bool lazy_metadata) {
  // The default family holds nothing; it gets the shared 16000-byte LZ4
  // baseline settings without a cache of its own.
  rocksdb::BlockBasedTableOptions t;
  t.block_size = 16000;
  rocksdb::ColumnFamilyOptions def;
  def.compression = rocksdb::kLZ4Compression;
  def.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return {{rocksdb::kDefaultColumnFamilyName, def},
          {"account", RocksTableOptions(Table::kAccount, lazy_metadata)},
          {"storage", RocksTableOptions(Table::kStorage, lazy_metadata)}};
}

Settings RocksSettings(bool lazy_metadata) {
  std::string lazy = lazy_metadata ? "true" : "false";
  return {
      {"filter", "ribbon, 10 bits/key"},
      {"index_type", "kBinarySearch"},
      {"data_block_index_type", "kDataBlockBinaryAndHash"},
      {"account.block_size", "4096"},
      {"account.compression", "none"},
      {"account.block_cache", "HyperClockCache 300 MiB"},
      {"storage.block_size", "8000"},
      {"storage.compression", "LZ4"},
      {"storage.block_cache", "HyperClockCache 700 MiB"},
      {"default.block_size", "16000 (LZ4)"},
      {"cache_index_and_filter_blocks", lazy},
      {"max_open_files", "-1"},
      {"advise_random_on_open", "true"},
      {"reads", "through a snapshot, verify_checksums=true (default)"},
      {"load", "SstFileWriter + IngestExternalFile (bottommost level)"},
  };
}

}  // namespace flatbench::baselines
