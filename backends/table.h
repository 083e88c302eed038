#pragma once
// The backends table: one entry per backend name this project knows (the
// stores, and the read variants that read a store's files another way):
// its plain facts (dataset/backend_facts.h), and the functions that open,
// load and write it. Callers ask the table; they never test a backend's
// name or reach its concrete type. Only the CLI and the tests link it: it
// links every backend compiled in.

#include <csignal>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/backend.h"
#include "common/live_store.h"
#include "common/status.h"
#include "dataset/backend_facts.h"
#include "dataset/spec.h"

namespace flatbench::backends {

// A lookup read through a checked walk of the store's own pages, apart
// from the store's reader (LMDB: baselines/lmdb_path.h).
struct CheckedValue {
  bool found = false;
  std::string value;  // When found.
};

// How to reach a backend's code: null when it is not compiled in.
struct Functions {
  // Opens the backend whose files live in `dir`. Every built entry.
  Result<std::unique_ptr<Backend>> (*open)(
      const std::string& dir, const OpenOptions& options) = nullptr;
  // A loader that builds the store for `spec` in the (empty) `dir`, with
  // up to `jobs` threads of its own where the engine allows. Built stores
  // only; null for read variants.
  Result<std::unique_ptr<BulkLoader>> (*load)(const std::string& dir,
                                              const dataset::Spec& spec,
                                              unsigned jobs) = nullptr;
  // A writer that applies the stream's blocks to the store in `dir` through
  // its own write path (flatbench age); `jobs` where the engine can use
  // them, `merge_every` for a store kept packed by merges (the arena).
  // Null: the store cannot be aged.
  Result<std::unique_ptr<StoreWriter>> (*write)(
      const std::string& dir, const WriterOptions& options) = nullptr;
  // Opens the store in `dir` for reading and writing at once (bench
  // --write-while-reading): a Backend and a StoreWriter sharing it
  // (common/live_store.h). Null: refused, for the reason `no_live` gives.
  Result<std::unique_ptr<LiveStore>> (*live)(
      const std::string& dir, const OpenOptions& options,
      const WriterOptions& writer) = nullptr;
  const char* no_live = nullptr;
  // Refuses, before anything is written, a build `dir`'s filesystem cannot
  // hold (kRefuseOverwrite with the figures). Null: always buildable.
  Status (*check_room)(const dataset::Spec& spec,
                       const std::string& dir) = nullptr;
  // The lookup of `key` in `table` through the checked walk; null: none.
  Result<CheckedValue> (*checked_get)(const std::string& dir, Table table,
                                      std::string_view key) = nullptr;
  // The linked library's version; null when `library` is empty.
  std::string (*library_version)() = nullptr;
};

// One backend: its facts (name, store, figures: dataset/backend_facts.h)
// and its functions. The table holds one entry per dataset::kBackends
// entry, in that order.
struct Entry : dataset::BackendFacts, Functions {
  // Compiled into this build. An entry that is not has every function null.
  bool built = false;
};

// Every entry, built or not, in canonical order: the stores first (what
// gen builds by default), then the read variants.
std::span<const Entry> All();
// The entry named `name`, or null.
const Entry* Find(std::string_view name);
// The entry named `name` when built; else kUsage naming `flag` and listing
// what this build holds.
Result<const Entry*> Built(std::string_view name, std::string_view flag);

// Names of the built stores, in canonical order.
std::vector<std::string> Stores();
// Names of every built entry: the stores, then the read variants.
std::vector<std::string> Names();
// Stores() less those not built at `spec`'s size (max_pairs): what gen and
// gonogo build by default.
std::vector<std::string> DefaultStores(const dataset::Spec& spec);
// The read variants gonogo measures by default (Entry::default_variant).
std::vector<std::string> DefaultVariants();
// Refuses a store that cannot be built for `spec` in `dir`: a name that is
// no built store, or a read variant (kUsage); a store above its max_pairs
// (kUsage); one whose check_room refuses. Messages give the figures.
Status CheckBuildable(const std::string& name, const dataset::Spec& spec,
                      const std::string& dir);
// Opens `name` (a built entry) on its files in `dir`.
Result<std::unique_ptr<Backend>> Open(const std::string& name,
                                      const std::string& dir,
                                      const OpenOptions& options);
// A loader for store `name` (a built store) into `dir`, with up to `jobs`
// threads of its own (0 counts as 1): a datagen::LoaderFactory.
Result<std::unique_ptr<BulkLoader>> NewLoader(const std::string& name,
                                              const std::string& dir,
                                              const dataset::Spec& spec,
                                              unsigned jobs);
// A writer for store `name` (a built store with a writer) on its files in
// `dir`: a datagen::WriterFactory. kUsage for a store that cannot be aged.
Result<std::unique_ptr<StoreWriter>> NewWriter(const std::string& name,
                                               const std::string& dir,
                                               const WriterOptions& options);
// Ok when store `name` has a writer; else NewWriter's kUsage.
Status CheckWritable(const std::string& name);
// Ok when entry `name` can be read while it is written (Functions::live);
// else kUsage naming `flag`, the entry and why not.
Status CheckLive(const std::string& name, std::string_view flag);
// The store `name` (CheckLive) open for reading and writing on its files in
// `dir`.
Result<std::unique_ptr<LiveStore>> OpenLive(const std::string& name,
                                            const std::string& dir,
                                            const OpenOptions& options,
                                            const WriterOptions& writer);
// (library, version) of every built entry that links one.
std::vector<std::pair<std::string, std::string>> LibraryVersions();

}  // namespace flatbench::backends
