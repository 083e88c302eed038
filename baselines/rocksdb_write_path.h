#pragma once
// RocksDB's write path as an aged store takes it: what the writer
// (rocksdb_writer.h) and the relevel share.
//
// A bulk load ingests its sorted files into the last level (Phase 0's
// shape, as the seed defines it). A node's store never has that shape: a
// sync writes its state in key order through the write path, where the
// production options put it in L1..Ln at the level targets, and then the
// chain's blocks compact it. Relevel builds that starting shape from a
// bulk-loaded store, so that aging begins where a node's store begins.

#include <rocksdb/db.h>

#include <csignal>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/backend.h"
#include "common/status.h"

namespace flatbench::baselines {

// Waits until RocksDB has no flush or compaction running or pending on
// `families` (RocksDB 7.8 has no call for it: its counters are polled). A
// background error (a full disk) is kIOError naming `dir`, not waited on;
// so is work still running after an hour.
// A block's changes as one WriteBatch written to `db` with default write
// options (the WAL as the database was opened with it): each table's in
// families[Table]. Errors name `dir`.
Status WriteBlock(rocksdb::DB* db,
                  const std::vector<rocksdb::ColumnFamilyHandle*>& families,
                  std::span<const KeyChange> changes, const std::string& dir);

Status WaitForBackgroundWork(
    rocksdb::DB* db, const std::vector<rocksdb::ColumnFamilyHandle*>& families,
    const std::string& dir);

// Whether every SST file of `families` sits in the last level and there is
// at least one: the shape a bulk load ingests.
bool OnlyInLastLevel(rocksdb::DB* db,
                     const std::vector<rocksdb::ColumnFamilyHandle*>& families);

// Bytes of the SST files of `families`.
uint64_t SstBytes(rocksdb::DB* db,
                  const std::vector<rocksdb::ColumnFamilyHandle*>& families);

// The folder a relevel builds in beside `dir` ("DIR.relevel"); one left by
// a killed run is removed before the next.
std::string RelevelPath(const std::string& dir);

// Rebuilds the bulk-loaded database in `dir` as a sync writes it: every
// pair of each family read in key order and written through the write path
// with the production options (WriteBatches of 10,000 pairs, the WAL off as
// a sync that can restart has it), then flushed and left to RocksDB's own
// compactions until they end. Built in RelevelPath(dir), exchanged with
// `dir` in one rename, and the old files removed: a kill leaves the whole
// old store or the whole new one. Prints its progress to stderr unless
// `quiet`. kIOError "stopped" when *stop is set (the old store untouched).
Status Relevel(const std::string& dir, bool quiet,
               const volatile std::sig_atomic_t* stop);

}  // namespace flatbench::baselines
