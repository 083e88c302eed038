#pragma once
// What building and benchmarking a dataset needs, computed from its spec.
//
// Raw bytes follow from the dataset definition: an account pair is 20 key
// bytes and on average 80.625 value bytes (the nonce's RLP is 1, 2 or 3
// bytes for nonces 0..127, 128..255 and 256..1023), a storage pair 52 + 32.
// Each backend's on-disk size is raw bytes times a factor measured at
// medium scale (RESEARCH.md, section 6), plus a 10% margin.

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

uint64_t RawBytes(const dataset::Spec& spec);
// Expected on-disk bytes of `backend` ("arena", "rocksdb", "lmdb",
// "sqlite", "fs"), margin included.
uint64_t EstimateDiskBytes(const dataset::Spec& spec,
                           const std::string& backend);

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
FsStoreEstimate EstimateFsStore(const dataset::Spec& spec,
                                uint64_t block_bytes = 4096);

// Seconds to build `backend` for `spec`, at the generation rates measured
// at medium scale on a loaded 2-core host (RESEARCH.md, section 6): arena
// 640k, RocksDB 520k, LMDB 170k pairs/s; and at smoke scale on the same
// host: SQLite 270k, PostgreSQL 127k pairs/s after about 3 s for its
// cluster and server, the fs store 12k files/s (a file per key).
double EstimateBuildSeconds(const dataset::Spec& spec,
                            const std::string& backend);
// Peak memory of the generator: bucketed counters plus one bucket's sort
// buffer (stream.h).
uint64_t EstimateGeneratorBytes(const dataset::Spec& spec);

// What the host has: MemAvailable from /proc/meminfo (0 if unreadable), and
// the free bytes of the filesystem holding `path` or its nearest existing
// parent (0 if unknown). The checks against the estimates above use them.
uint64_t MemAvailableBytes();
uint64_t FreeBytes(const std::string& path);
// Free inodes and the block size of that filesystem (0 if unknown).
uint64_t FreeInodes(const std::string& path);
uint64_t BlockBytes(const std::string& path);

// What a whole run (gen, then bench) needs beyond what is built already, and
// what the host has.
struct RunNeeds {
  uint64_t disk = 0;       // Backends not yet built, plus device scratch.
  uint64_t free_disk = 0;  // FreeBytes(dir).
  uint64_t ram = 0;        // The generator, plus 1 GiB for the process.
  uint64_t free_ram = 0;   // MemAvailableBytes(); 0 if unknown.
};
// Disk counts every backend in `backends` that `dir` does not hold complete
// for `spec`, plus room for the device cells' scratch file (the largest
// backend's size, at most 4 GiB).
RunNeeds EstimateRunNeeds(const dataset::Spec& spec, const std::string& dir,
                          const std::vector<std::string>& backends);
// kRefuseOverwrite, with the figures, when the disk holding `dir` or the
// memory falls short of `needs` (an unknown amount of memory passes).
Status CheckRunNeeds(const RunNeeds& needs, const dataset::Spec& spec,
                     const std::string& dir);

// Warm mode holds every backend's files resident at once. It is skipped
// when the files exceed 70% of `mem_available` (0: unknown, never skipped),
// and its hold is bounded to four fifths of what is available beyond 1 GiB,
// leaving the rest for the processes themselves.
bool WarmModeFits(uint64_t files_bytes, uint64_t mem_available);
uint64_t WarmHoldLimitBytes(uint64_t mem_available);

}  // namespace flatbench::datagen
