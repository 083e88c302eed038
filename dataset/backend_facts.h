#pragma once
// Every backend this project knows, once, as plain data: its name, the
// store whose files it reads, what the commands need to know of it, and
// the figures the estimates price it by (building it: dataset/estimate.h;
// reading it: the bench plan, bench/plan_cost.h). The dataset, the bench
// and the report read it without linking any backend; the backends table
// (backends/table.h) adds to each entry how to open, load and write it.
// Callers ask the facts; they never test a backend's name.
//
// Where the figures were measured, and how: RESEARCH.md section 6 ("What
// it needs", "The gen time model", "The bench time model") and section 11
// ("The upkeep figures", "Measured"). Tests hold the documents' tables to
// these values.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/results_schema.h"

namespace flatbench::dataset {

// What building a store takes (dataset/estimate.h).
struct StoreFigures {
  // On-disk bytes over raw bytes; 0: estimated from its file count
  // (EstimateFsStore) instead.
  double disk_factor = 0;
  // Non-empty: the factor was not measured; what stands in for it, as the
  // plan lists it among its assumptions.
  std::string_view disk_factor_assumed = {};
  double pairs_per_second = 0;    // Build rate at one job (gen --jobs 1).
  double pairs_per_second_2 = 0;  // Build rate at two jobs (gen --jobs 2).
  double setup_seconds = 0;       // Before the first pair (a server's start).
  // The engine takes one writer: only key and value generation run beside
  // it (LMDB, SQLite; and the fs store, one file at a time).
  bool one_writer = false;
  // Whether pairs_per_second_2 was measured (else assumed, and the plan
  // says so).
  bool two_jobs_measured = false;
  // Where and how the rates were measured, for the plan and the docs.
  std::string_view rates_from = {};
  // flatbench age: wall seconds per block of 2,000 changes through the
  // store's write path (the arena: gathering them and writing its deltas;
  // its merges are priced apart, EstimateAgeSeconds); 0: no writer.
  double age_seconds_per_block = 0;
  // A store kept packed by merges that rewrite it whole (the arena): the
  // pairs per second of a merge at two jobs; 0: no merges.
  double merge_pairs_per_second = 0;
};

// What one store's bench passes cost (bench/plan_cost.h has the model).
struct PassCost {
  double open_s = 0.05;        // A cold open's fixed part, in seconds.
  double open_s_per_pair = 0;  // Its part per pair: metadata it loads.
  double hit_reads = 1;        // 4 KiB device reads per cold hit.
  double miss_reads = 1;       // Per cold miss (0: a filter answers).
  double cpu_read_s = 4e-6;    // CPU per cold read beside its I/O.
  double warm_read_s = 4e-6;   // One warm read at one thread.
  double scan_reads = 3;       // 4 KiB device reads per cold scan.
  double probe_s = 0.2;        // A startup probe: spawn, open, read.
  double per_file_s = 3.6e-6;  // Per file: fadvise, mincore.
};

struct BackendFacts {
  // "arena", "rocksdb", ..., or a read variant "STORE+HOW".
  std::string_view name = {};
  // The store whose files it reads: `name` for a store.
  std::string_view store = {};
  // Whether warm mode means anything for it (false: O_DIRECT reads, which
  // never hit the page cache).
  bool runs_warm = true;
  // A read variant gonogo measures unless told otherwise.
  bool default_variant = false;
  // Most pairs it is built for (0: no limit); above, gen refuses it and
  // leaves it out by default.
  uint64_t max_pairs = 0;
  // Its files are this project's format (arena/FORMAT.md), which `info`
  // describes shard by shard.
  bool own_format = false;
  // It runs a server of its own (started with the store: setup_seconds,
  // and its opens and probes include the start).
  bool needs_server = false;
  // What its own whole-store check (Backend::CheckIntegrity) does, for
  // verify's progress line; empty: it has none.
  std::string_view integrity_check = {};
  // Non-empty: its reader keeps no checksums and trusts the pages of this
  // file (in its folder), so a damaged page can crash the process: get and
  // verify read it in a child process, and name this file if the child dies.
  std::string_view isolated_file = {};
  // How the report names it where its read path matters (the arena's
  // mmap reader beside its other read paths); empty: its name.
  std::string_view label = {};
  // The library it links, and the results' context key of its version;
  // empty: nothing linked (the arena is this project's).
  std::string_view library = {};
  results::ContextKey library_key = {};
  // A store's figures; a read variant is priced as its store.
  StoreFigures figures = {};
  PassCost cost = {};

  constexpr bool is_store() const { return name == store; }
  constexpr bool isolate_reads() const { return !isolated_file.empty(); }
};

namespace facts_detail {
inline constexpr std::string_view kArenaCheck =
    "walking every block of both files";
inline constexpr std::string_view kMeasured3M = "3M x 4 alone, idle 2-core VM";
inline constexpr std::string_view kFsSmoke = "smoke gonogo, idle 2-core VM";
}  // namespace facts_detail

// Every backend, in canonical order: the stores first (what gen builds by
// default), then the read variants.
inline constexpr BackendFacts kBackends[] = {
    {.name = "arena",
     .store = "arena",
     .own_format = true,
     .integrity_check = facts_detail::kArenaCheck,
     .label = "arena (mmap)",
     .figures = {.disk_factor = 1.056,
                 .pairs_per_second = 1169e3,
                 .pairs_per_second_2 = 1829e3,
                 .two_jobs_measured = true,
                 .rates_from = facts_detail::kMeasured3M,
                 .age_seconds_per_block = 0.0095,
                 .merge_pairs_per_second = 6.19e6},
     .cost = {.open_s = 0.005,
              .open_s_per_pair = 5.3e-9,
              .hit_reads = 1.0,
              .miss_reads = 0,
              .cpu_read_s = 4e-6,
              .warm_read_s = 3e-7,
              .scan_reads = 3,
              .probe_s = 0.1,
              .per_file_s = 3.6e-6}},
    {.name = "rocksdb",
     .store = "rocksdb",
     .integrity_check = "VerifyChecksum of every SST file",
     .library = "rocksdb",
     .library_key = results::kLibRocksdb,
     .figures = {.disk_factor = 1.008,
                 .pairs_per_second = 782e3,
                 .pairs_per_second_2 = 1389e3,
                 .two_jobs_measured = true,
                 .rates_from = facts_detail::kMeasured3M,
                 .age_seconds_per_block = 0.0127},
     .cost = {.open_s = 0.015,
              .open_s_per_pair = 3e-10,
              .hit_reads = 1.35,
              .miss_reads = 0.02,
              .cpu_read_s = 8e-6,
              .warm_read_s = 1e-6,
              .scan_reads = 4,
              .probe_s = 0.15,
              .per_file_s = 3.6e-6}},
    {.name = "lmdb",
     .store = "lmdb",
     .integrity_check = "a pread check of every page of both trees",
     .isolated_file = "data.mdb",
     .library = "lmdb",
     .library_key = results::kLibLmdb,
     .figures = {.disk_factor = 1.149,
                 .pairs_per_second = 928e3,
                 .pairs_per_second_2 = 1485e3,
                 .one_writer = true,
                 .two_jobs_measured = true,
                 .rates_from = facts_detail::kMeasured3M,
                 .age_seconds_per_block = 0.040},
     .cost = {.open_s = 0.005,
              .open_s_per_pair = 1.7e-8,
              .hit_reads = 1.05,
              .miss_reads = 1.0,
              .cpu_read_s = 4e-6,
              .warm_read_s = 1e-6,
              .scan_reads = 3,
              .probe_s = 0.1,
              .per_file_s = 3.6e-6}},
    // The reference rows: measured, never gated unless thresholds.json
    // names them.
    {.name = "postgres",
     .store = "postgres",
     .needs_server = true,
     .figures = {.disk_factor = 1.149,
                 .disk_factor_assumed =
                     "PostgreSQL's size over raw bytes (LMDB's)",
                 .pairs_per_second = 410e3,
                 .pairs_per_second_2 = 249e3,
                 .setup_seconds = 3.0,
                 .two_jobs_measured = true,
                 .rates_from = facts_detail::kMeasured3M,
                 .age_seconds_per_block = 0.078},
     .cost = {.open_s = 0.15,
              .open_s_per_pair = 0,
              .hit_reads = 2.0,
              .miss_reads = 1.0,
              .cpu_read_s = 6e-5,
              .warm_read_s = 6e-5,
              .scan_reads = 6,
              .probe_s = 1.6,
              .per_file_s = 3.6e-6}},
    {.name = "sqlite",
     .store = "sqlite",
     .integrity_check = "PRAGMA integrity_check of the whole file",
     .figures = {.disk_factor = 1.22,
                 .pairs_per_second = 566e3,
                 .pairs_per_second_2 = 593e3,
                 .one_writer = true,
                 .two_jobs_measured = true,
                 .rates_from = facts_detail::kMeasured3M,
                 .age_seconds_per_block = 0.067},
     .cost = {.open_s = 0.05,
              .open_s_per_pair = 0,
              .hit_reads = 1.5,
              .miss_reads = 1.0,
              .cpu_read_s = 1e-5,
              .warm_read_s = 5e-6,
              .scan_reads = 4,
              .probe_s = 0.1,
              .per_file_s = 3.6e-6}},
    // One file per key: built only up to smoke scale
    // (baselines/fs_layout.h's kMaxPairs, which the table holds to this).
    {.name = "fs",
     .store = "fs",
     .max_pairs = 600'000,
     .figures = {.disk_factor = 0,
                 .pairs_per_second = 43e3,
                 .pairs_per_second_2 = 43e3,
                 .one_writer = true,
                 .two_jobs_measured = false,
                 .rates_from = facts_detail::kFsSmoke,
                 .age_seconds_per_block = 0.32},
     .cost = {.open_s = 0.01,
              .open_s_per_pair = 0,
              .hit_reads = 2.0,
              .miss_reads = 1.0,
              .cpu_read_s = 2e-5,
              .warm_read_s = 2e-5,
              .scan_reads = 100,
              .probe_s = 0.1,
              .per_file_s = 3.6e-6}},
    // The arena's other read paths (arena/read_path.h) over its files.
    {.name = "arena+pread",
     .store = "arena",
     .integrity_check = facts_detail::kArenaCheck},
    {.name = "arena+direct",
     .store = "arena",
     .runs_warm = false,
     .integrity_check = facts_detail::kArenaCheck},
    {.name = "arena+cache",
     .store = "arena",
     .default_variant = true,
     .integrity_check = facts_detail::kArenaCheck},
    // The live node's read path between merges: the store's log of
    // unmerged blocks in memory first, then the base (arena/delta_backend.h).
    {.name = "arena+delta",
     .store = "arena",
     .integrity_check = facts_detail::kArenaCheck},
};

// The facts of `name`, or null.
constexpr const BackendFacts* FindFacts(std::string_view name) {
  for (const BackendFacts& f : kBackends) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// The store the project asks about: the default of `get --backend` and
// of the thresholds' candidate.
inline constexpr std::string_view kCandidate = "arena";

// The store whose figures a name that is no store gets: LMDB, the slowest
// embedded store.
inline constexpr std::string_view kFallbackStore = "lmdb";

namespace facts_detail {
// Whether `name` is a store's (a loop, not FindFacts: GCC's UBSan build
// does not take a pointer comparison in a constant expression).
constexpr bool IsStoreName(std::string_view name) {
  for (const BackendFacts& f : kBackends) {
    if (f.name == name) return f.is_store();
  }
  return false;
}
}  // namespace facts_detail
static_assert(facts_detail::IsStoreName(kFallbackStore));
static_assert(facts_detail::IsStoreName(kCandidate));

// The most pairs `name` is built for (0: no limit, or no such backend);
// a loop, for constant expressions (see IsStoreName).
constexpr uint64_t MaxPairsOf(std::string_view name) {
  for (const BackendFacts& f : kBackends) {
    if (f.name == name) return f.max_pairs;
  }
  return 0;
}

namespace facts_detail {
constexpr size_t CountStores() {
  size_t n = 0;
  for (const BackendFacts& f : kBackends) n += f.is_store() ? 1 : 0;
  return n;
}
}  // namespace facts_detail

// Every store's facts, in canonical order.
inline constexpr auto kStoreFacts = [] {
  std::array<const BackendFacts*, facts_detail::CountStores()> out{};
  size_t i = 0;
  for (const BackendFacts& f : kBackends) {
    if (f.is_store()) out[i++] = &f;
  }
  return out;
}();

// Every store a dataset directory may hold a folder and a marker for, in
// canonical order.
inline constexpr auto kStores = [] {
  std::array<std::string_view, kStoreFacts.size()> out{};
  for (size_t i = 0; i < out.size(); ++i) out[i] = kStoreFacts[i]->name;
  return out;
}();

}  // namespace flatbench::dataset
