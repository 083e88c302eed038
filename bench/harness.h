#pragma once
// The point-read matrix for one backend, run in this process:
// table x key kind x threads x mode x repetition, one google-benchmark entry
// per measured pass. See ../shared/DESIGN.md "Modes and what is measured"
// and RESULTS_FORMAT.md for what each entry records.
//
// Order of work for a backend:
//   1. sanity check (datagen::CheckSample, both tables, hits and every miss
//      kind) with each open mode that will be measured, BEFORE any eviction;
//   2. warm cells: open once (timed); before every pass read all files
//      through and verify with mincore that >= 99% of pages are resident;
//   3. cold and cold-lazy cells, every pass: close the backend, evict its
//      files, verify with mincore that <= eviction_bound is resident, reopen
//      (timed), run one pass with fixed iterations and no warm-up.
// A pass whose eviction (or warm residency) cannot be verified is still run
// and recorded with eviction_verified = 0, never passed off as valid.

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/backend.h"
#include "datagen/check.h"
#include "datagen/dataset.h"
#include "datagen/sampler.h"

namespace flatbench::bench {

enum class Mode { kWarm, kCold, kColdLazy };
const char* ModeName(Mode mode);  // "warm", "cold", "cold-lazy"
bool ParseMode(std::string_view name, Mode* out);

// Opens `backend` of the dataset being measured. Supplied by the CLI, so
// bench/ does not depend on the backends.
using Opener = std::function<Result<std::unique_ptr<Backend>>(
    const std::string& backend, const OpenOptions& options)>;

inline constexpr uint64_t kDefaultDrawSeed = 0x647261772d6b6579ULL;

struct BenchOptions {
  std::vector<Mode> modes = {Mode::kWarm, Mode::kCold, Mode::kColdLazy};
  std::vector<Table> tables = {Table::kAccount, Table::kStorage};
  // miss-live applies to the storage table only; it is skipped for account.
  std::vector<datagen::KeyKind> kinds = {datagen::KeyKind::kHit,
                                         datagen::KeyKind::kMissAbsent,
                                         datagen::KeyKind::kMissLiveAccount};
  std::vector<int> threads = {1, 8, 32};
  // Total reads per pass over all threads; each thread reads
  // reads_per_pass / threads (at least 1), capped so that a pass never
  // reads more keys than the (table, kind) key space holds.
  uint64_t reads_per_pass = 20'000;
  int repetitions = 3;
  uint64_t draw_seed = kDefaultDrawSeed;
  double eviction_bound = 0.01;  // Max resident fraction after eviction.
  double warm_bound = 0.99;      // Min resident fraction for warm passes.
  datagen::CheckOptions check;
  bool progress = true;  // One line per pass on stderr.
};

std::string CellName(const std::string& backend, Table table,
                     datagen::KeyKind kind, Mode mode, int threads, int rep);

struct BackendRun {
  // google-benchmark's context plus flatbench.backend.<b>.* keys.
  nlohmann::json context = nlohmann::json::object();
  nlohmann::json benchmarks = nlohmann::json::array();
  // Not ok when the sanity check failed; then no pass was run.
  Status sanity;
};

// Runs the whole matrix for `backend` (files in dataset.BackendDir).
// Errors: kMissingInput when the backend is not complete in the dataset;
// open, eviction and read errors as returned. A failed sanity check is not
// an error: it is returned in BackendRun::sanity.
Result<BackendRun> RunBackend(const datagen::Dataset& dataset,
                              const std::string& backend, const Opener& open,
                              const BenchOptions& options);

}  // namespace flatbench::bench
