#pragma once
// RocksDB baseline: two column families (account, storage) under the
// production flat-state options of rocksdb_options.h.

#include <memory>
#include <string>
#include <vector>

#include "common/backend.h"

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
}  // namespace rocksdb

namespace flatbench::baselines {

// Opens the database in `dir` read-only. kMissingInput if there is none,
// kCorruption or kIOError for what RocksDB reports.
Result<std::unique_ptr<Backend>> OpenRocksDb(const std::string& dir,
                                             const OpenOptions& options);

// A backend over `db`, opened by the caller (read-write, for reads while
// writing: rocksdb_live.h), owning it and `handles` ({default, account,
// storage}). Its sessions read without a snapshot, so each Get sees every
// batch written before it began.
std::unique_ptr<Backend> RocksDbBackendOver(
    std::unique_ptr<rocksdb::DB> db,
    std::vector<rocksdb::ColumnFamilyHandle*> handles);

// A loader that writes each table as ascending SST files and ingests them
// into the bottommost level of a new database in `dir` at Finish.
// `jobs`: threads writing SST files at once (rocksdb_sst_writer.h).
Result<std::unique_ptr<BulkLoader>> NewRocksDbLoader(const std::string& dir,
                                                     unsigned jobs = 1);

// The backend's OpenScan is a RocksDB iterator (checksums verified, block
// cache not filled); its CheckIntegrity is RocksDB's own DB::VerifyChecksum:
// every block of every SST file against its stored checksum, kCorruption
// with RocksDB's message (which names the file) on a mismatch.

// The linked RocksDB's version, "MAJOR.MINOR.PATCH".
std::string RocksDbVersion();

}  // namespace flatbench::baselines
