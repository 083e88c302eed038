#pragma once
// What building a dataset takes, computed from its spec alone: raw bytes,
// each store's bytes on disk, build seconds and the generator's memory.
//
// Raw bytes follow from the dataset definition: an account pair is 20 key
// bytes and on average 80.625 value bytes (the nonce's RLP is 1, 2 or 3
// bytes for nonces 0..127, 128..255 and 256..1023), a storage pair 52 + 32.
// Each store's on-disk size is raw bytes times a factor measured at
// medium scale (RESEARCH.md, section 6), plus a 10% margin.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "dataset/spec.h"

namespace flatbench::dataset {

// One store's measured figures (RESEARCH.md, section 6), keyed by its name
// because the report and bench estimate sizes without linking the stores.
struct StoreFigures {
  std::string_view store;
  // On-disk bytes over raw bytes; 0: estimated from its file count
  // (EstimateFsStore) instead.
  double disk_factor = 0;
  double pairs_per_second = 0;  // Build rate.
  double setup_seconds = 0;     // Before the first pair (a server's start).
};
// Every store's figures, in canonical order. A name not in it gets LMDB's,
// the slowest embedded store's.
std::span<const StoreFigures> AllStoreFigures();

uint64_t RawBytes(const Spec& spec);
// Expected on-disk bytes of store `store` ("arena", "rocksdb", "lmdb",
// "postgres", "sqlite", "fs"), margin included.
uint64_t EstimateDiskBytes(const Spec& spec, const std::string& store);

// The filesystem store (one file per key, two folder levels by the key's
// first two bytes, baselines/fs_layout.h) takes one inode and at least one
// block per file and per folder: values are under 100 bytes, and a leaf
// folder holds a few dozen names, which fit its first block.
struct FsStoreEstimate {
  uint64_t files = 0;
  uint64_t folders = 0;  // Expected count for uniformly spread key prefixes.
  uint64_t inodes = 0;   // files + folders
  uint64_t disk_bytes = 0;
};
FsStoreEstimate EstimateFsStore(const Spec& spec, uint64_t block_bytes = 4096);

// Seconds to build `store` for `spec`, at the generation rates measured
// at medium scale on a loaded 2-core host (RESEARCH.md, section 6): arena
// 640k, RocksDB 520k, LMDB 170k pairs/s; and at smoke scale on the same
// host: SQLite 270k, PostgreSQL 127k pairs/s after about 3 s for its
// cluster and server, the fs store 12k files/s (a file per key).
double EstimateBuildSeconds(const Spec& spec, const std::string& store);
// Peak memory of building one backend with `jobs` threads (0 counts as 1):
//   4 x accounts x (jobs > 1 ? 2 : 1)      the bucketed counters
//   + (jobs + 1) x 1.5 x batch             batches made ahead, one in use
//   + (jobs + 1) x max(2.2 x shard, 64 MB) the loader's units in flight
// where batch = max(128 x a, 96 x a x slots) bytes for a = accounts / 256
// per bucket (datagen/stream.h), shard = one table's raw bytes / 256 (an
// arena shard's pairs copied for its worker, then its built image, 10%
// over) and 64 MB a RocksDB SST chunk (baselines/rocksdb_sst_writer.h).
// 1.5 is for vector growth and skew between buckets. A gen building k
// backends at once needs k times this.
uint64_t EstimateGeneratorBytes(const Spec& spec, unsigned jobs = 1);

}  // namespace flatbench::dataset
