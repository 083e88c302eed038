#pragma once
// What building a dataset takes, computed from its spec alone: raw bytes,
// each store's bytes on disk, build seconds and the generator's memory.
//
// Raw bytes follow from the dataset definition: an account pair is 20 key
// bytes and on average 80.625 value bytes (the nonce's RLP is 1, 2 or 3
// bytes for nonces 0..127, 128..255 and 256..1023), a storage pair 52 + 32.
// Each store's on-disk size is raw bytes times a factor measured at
// medium scale (RESEARCH.md, section 6), plus a 10% margin.
//
// Build time (RESEARCH.md, section 6, "The gen time model"): each store's
// build rate at one job and at two jobs, measured. A store whose engine
// writes in parallel (the arena's shards, RocksDB's SST files, PostgreSQL's
// COPY connections) gets its parallel share by Amdahl's law,
// p = 2 (1 - r1 / r2): the part of its one-job time that N jobs divide by
// N. A store whose engine takes one writer (LMDB, SQLite, the fs store)
// goes at its writer's rate from two jobs on, the rate measured at two
// jobs, when the keys and values are made beside the writer: more jobs
// make them faster, not the writer. Several stores build at once, so a
// whole gen takes the longer of its work spread over the cores and its
// longest store alone.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dataset/backend_facts.h"
#include "dataset/spec.h"

namespace flatbench::dataset {

// The building figures of `store` (dataset/backend_facts.h); a name that
// is no store gets kFallbackStore's.
const StoreFigures& FiguresOf(std::string_view store);

uint64_t RawBytes(const Spec& spec);
// Expected on-disk bytes of store `store` (a name of kStores), margin
// included.
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

// The share of `store`'s one-job build time that jobs divide (Amdahl's p,
// from its one- and two-job rates), in [0, 1]. It prices the stores that
// write in parallel; gen starts the builds of lower shares first.
double ParallelShare(const StoreFigures& f);

// A one-writer store's rate from two jobs on: its two-job rate (or its
// one-job rate, if that was higher), pairs per second.
double WriterRate(const StoreFigures& f);

// Seconds to build `store` for `spec` alone with `jobs` jobs (0 counts as
// 1) on a host with at least that many cores, at the measured rates
// (StoreFigures), T1 = pairs / r1 being its one-job time: setup +
// T1 ((1 - p) + p / jobs) for a store that writes in parallel; setup + T1
// at one job and setup + max(T1 / jobs, pairs / WriterRate) from two jobs
// on for a one-writer store.
double EstimateBuildSeconds(const Spec& spec, const std::string& store,
                            unsigned jobs = 1);

// Wall seconds of a gen of `stores` with `jobs` jobs on `cores` cores
// (each 0 counts as 1; jobs beyond the cores add nothing): the stores
// build at once where they fit, so it is the longer of all their one-job
// work (core seconds) over min(jobs, cores) and the slowest store's own
// time at that many jobs. With one job: the sum of their one-job times.
// Assumes the disk keeps up and RAM admits the stores at once (gen checks
// both before it starts).
double EstimateGenSeconds(const Spec& spec,
                          const std::vector<std::string>& stores, unsigned jobs,
                          unsigned cores);
// The same with each store's times (its one-job work, its setup and its own
// time at the jobs) scaled by its factor in `factors` (1 when absent): this
// host's measured builds against the model (datagen/gen_calibration.h).
double EstimateGenSeconds(const Spec& spec,
                          const std::vector<std::string>& stores, unsigned jobs,
                          unsigned cores,
                          const std::map<std::string, double>& factors);

// Wall seconds of aging `store` by `blocks` blocks of `changes` changes
// (flatbench age, RESEARCH.md section 11): its measured seconds per block,
// scaled by changes / 2,000, and for a store kept by merges (the arena)
// one merge per `merge_every` blocks (and one for the rest), each the
// dataset's pairs at its measured merge rate. `jobs` is the merges' (the
// rate was measured at two: fewer halve it, more are not assumed to help).
double EstimateAgeSeconds(const Spec& spec, const std::string& store,
                          uint64_t blocks, uint32_t changes,
                          uint64_t merge_every, unsigned jobs);

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
