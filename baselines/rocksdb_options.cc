#include "baselines/rocksdb_options.h"

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

namespace flatbench::baselines {

Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  std::string msg = s.ToString();
  // RocksDB repeats the code of a wrapped status ("Corruption: Corruption:
  // IO error: ..."), and its messages often name the path already.
  if (size_t colon = msg.find(": "); colon != std::string::npos) {
    const std::string code = msg.substr(0, colon + 2);
    while (msg.compare(code.size(), code.size(), code) == 0) {
      msg.erase(0, code.size());
    }
  }
  if (msg.find(what) == std::string::npos) msg = what + ": " + msg;
  if (s.IsPathNotFound()) return Status::MissingInput(msg);
  // A missing database is caught before opening (no CURRENT file), so an
  // invalid argument is data that does not fit what is asked of it: a
  // column family or option the store was not built with, an ingested file
  // out of order. Bad data, not a missing file.
  if (s.IsCorruption() || s.IsInvalidArgument()) {
    return Status::Corruption(msg);
  }
  return Status::IOError(msg);
}

namespace {

// The write options of the seed client's flat columns (its DbConfig:
// FlatDbRocksDbOptions, then the per-column strings), which shape an aged
// store: memtables, level targets, file sizes, and no time-driven
// compaction. They do not change a bulk load, which ingests its files.
// The options every flat column shares (the default family, which holds
// nothing, takes them too, so that no family keeps a time-driven
// compaction).
void SetCommonWriteOptions(rocksdb::ColumnFamilyOptions* cf) {
  cf->min_write_buffer_number_to_merge = 2;
  cf->level_compaction_dynamic_level_bytes = false;
  cf->target_file_size_multiplier = 2;
  cf->ttl = 0;
  cf->periodic_compaction_seconds = 0;
}

void SetWriteOptions(Table table, rocksdb::ColumnFamilyOptions* cf) {
  SetCommonWriteOptions(cf);
  cf->target_file_size_base = SstTargetBytes(table);
  if (table == Table::kAccount) {
    cf->write_buffer_size = 16'000'000;
    cf->max_write_buffer_number = 4;
    cf->max_bytes_for_level_base = 128'000'000;
    cf->max_bytes_for_level_multiplier = 15;
    cf->target_file_size_multiplier = 3;
  } else {
    // Level targets: RocksDB's defaults (256 MB base, x10), which the
    // storage column's string leaves alone.
    cf->write_buffer_size = 32'000'000;
    cf->max_write_buffer_number = 4;
  }
}

}  // namespace

rocksdb::ColumnFamilyOptions RocksTableOptions(Table table,
                                               bool lazy_metadata) {
  rocksdb::BlockBasedTableOptions t;
  // Table options from the production FlatDbRocksDbOptions string:
  // ribbonfilter:10:3, kBinarySearch index, binary-and-hash data blocks at
  // util ratio 0.7, restart interval 4, L0 metadata pinned, whole keys.
  t.filter_policy.reset(rocksdb::NewRibbonFilterPolicy(10, 3));
  t.whole_key_filtering = true;
  t.partition_filters = false;
  t.index_type = rocksdb::BlockBasedTableOptions::kBinarySearch;
  t.data_block_index_type =
      rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  t.data_block_hash_table_util_ratio = 0.7;
  t.block_restart_interval = 4;
  t.pin_l0_filter_and_index_blocks_in_cache = true;
  t.prepopulate_block_cache =
      rocksdb::BlockBasedTableOptions::PrepopulateBlockCache::kFlushOnly;
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
  cf.optimize_filters_for_hits = false;
  SetWriteOptions(table, &cf);
  return cf;
}

uint64_t SstTargetBytes(Table table) {
  return table == Table::kAccount ? 32'000'000 : 64'000'000;
}

rocksdb::DBOptions RocksDbOptions() {
  rocksdb::DBOptions db;
  db.max_open_files = -1;
  db.advise_random_on_open = true;
  // The WAL as the seed client writes it: buffered until the writer
  // flushes it (StoreWriter::Checkpoint), write groups up to 4 MB.
  db.manual_wal_flush = true;
  db.max_write_batch_group_size_bytes = 4'000'000;
  return db;
}

std::vector<rocksdb::ColumnFamilyDescriptor> RocksFamilies(bool lazy_metadata) {
  // The default family holds nothing; it gets the shared 16000-byte LZ4
  // baseline settings without a cache of its own.
  rocksdb::BlockBasedTableOptions t;
  t.block_size = 16000;
  rocksdb::ColumnFamilyOptions def;
  def.compression = rocksdb::kLZ4Compression;
  SetCommonWriteOptions(&def);
  def.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return {{rocksdb::kDefaultColumnFamilyName, def},
          {"account", RocksTableOptions(Table::kAccount, lazy_metadata)},
          {"storage", RocksTableOptions(Table::kStorage, lazy_metadata)}};
}

Settings RocksSettings(bool lazy_metadata) {
  std::string lazy = lazy_metadata ? "true" : "false";
  return {
      {"filter_policy", "ribbonfilter:10:3 (whole keys, not partitioned)"},
      {"index_type", "kBinarySearch"},
      {"data_block_index_type", "kDataBlockBinaryAndHash (util ratio 0.7)"},
      {"block_restart_interval", "4"},
      {"pin_l0_filter_and_index_blocks_in_cache", "true"},
      {"optimize_filters_for_hits", "false"},
      {"sst_files", "account 32 MB, storage 64 MB (target_file_size_base)"},
      {"account.block_size", "4096"},
      {"account.compression", "none"},
      {"account.block_cache", "HyperClockCache 300 MiB"},
      {"storage.block_size", "8000"},
      {"storage.compression", "LZ4"},
      {"storage.block_cache", "HyperClockCache 700 MiB"},
      {"default.block_size", "16000 (LZ4)"},
      {"cache_index_and_filter_blocks", lazy},
      {"preload", lazy_metadata
                      ? "nothing: index and filter blocks go through a fresh "
                        "block cache on first use"
                      : "the index and filter blocks of every SST file, read "
                        "by its table reader at open"},
      {"max_open_files", "-1"},
      {"advise_random_on_open", "true"},
      {"reads", "through a snapshot, verify_checksums=true (default)"},
      {"load", "SstFileWriter + IngestExternalFile (bottommost level)"},
      {"write_buffer_size", "account 16000000, storage 32000000"},
      {"max_write_buffer_number", "4"},
      {"min_write_buffer_number_to_merge", "2"},
      {"max_bytes_for_level_base",
       "account 128000000 (x15), storage 268435456 (x10, default)"},
      {"target_file_size_multiplier", "account 3, storage 2"},
      {"level_compaction_dynamic_level_bytes", "false"},
      {"ttl, periodic_compaction_seconds", "0 (off)"},
      {"manual_wal_flush", "true"},
      {"max_write_batch_group_size_bytes", "4000000"},
  };
}

}  // namespace flatbench::baselines
