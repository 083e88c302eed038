#pragma once
// What age keeps beside the stores and measures around them (age.cc): each
// store's progress record, DIR/<store>.aging, this process's bytes written
// to storage, and the device's sequential write rate.

#include <cstdint>
#include <string>

#include "common/status.h"

namespace flatbench::datagen {

// A store's progress file, DIR/<store>.aging.
struct AgingRecord {
  std::string target;  // The target spec's canonical text.
  uint64_t from_blocks = 0;
  uint64_t durable = 0;  // Blocks of the stream durable in the store.
  double seconds = 0;
  uint64_t logical_bytes = 0;
  uint64_t written_bytes = 0;
  // The block after which the store met its steady-state condition
  // (StoreWriter::Steady), and its figures then; 0: not yet.
  uint64_t steady_at = 0;
  std::string steady_what;
};

std::string AgingPath(const std::string& dir, const std::string& store);
// Written whole (WriteFileAtomic).
Status SaveRecord(const std::string& path, const AgingRecord& r);
// kCorruption naming `path` when it does not parse.
Result<AgingRecord> LoadRecord(const std::string& path);

// /proc/self/io write_bytes: what this process (its every thread: RocksDB's
// flushes and compactions too) had the storage layer write. 0 if unknown.
uint64_t WriteBytes();

// The device's sequential write rate at `dir`, bytes/s: `bytes` written
// with O_DIRECT in 1 MiB writes into an unnamed file (O_TMPFILE: nothing is
// left behind, whatever happens), then fdatasync. 0 when the file system
// refuses either (the estimate is then left out, never made up).
double WriteRate(const std::string& dir, uint64_t bytes);

}  // namespace flatbench::datagen
