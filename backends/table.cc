#include "backends/table.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "arena/backend.h"
#include "arena/delta_backend.h"
#include "arena/loader.h"
#include "arena/merge_writer.h"
#include "backends/arena_live.h"
#include "baselines/fs_layout.h"
#include "common/files.h"
#include "dataset/estimate.h"
#include "flatbench_config.h"
// The one place that asks which backends this build holds.
#if FLATBENCH_HAVE_ROCKSDB
#include "baselines/rocksdb_backend.h"
#include "baselines/rocksdb_live.h"
#include "baselines/rocksdb_writer.h"
#endif
#if FLATBENCH_HAVE_LMDB
#include "baselines/lmdb_backend.h"
#include "baselines/lmdb_live.h"
#include "baselines/lmdb_path.h"
#include "baselines/lmdb_writer.h"
#endif
#if FLATBENCH_HAVE_POSTGRES
#include "baselines/postgres_backend.h"
#include "baselines/postgres_writer.h"
#endif
#if FLATBENCH_HAVE_SQLITE
#include "baselines/sqlite_backend.h"
#include "baselines/sqlite_writer.h"
#endif
#if FLATBENCH_HAVE_FS
#include "baselines/fs_backend.h"
#include "baselines/fs_writer.h"
#endif

namespace flatbench::backends {
namespace {

template <arena::ReadPath kPath>
Result<std::unique_ptr<Backend>> OpenArena(const std::string& dir,
                                           const OpenOptions& options) {
  FLATBENCH_ASSIGN_OR_RETURN(auto b,
                             arena::ArenaBackend::Open(dir, options, kPath));
  return std::unique_ptr<Backend>(std::move(b));
}

Result<std::unique_ptr<Backend>> OpenArenaDelta(const std::string& dir,
                                                const OpenOptions& options) {
  FLATBENCH_ASSIGN_OR_RETURN(auto b, arena::DeltaBackend::Open(dir, options));
  return std::unique_ptr<Backend>(std::move(b));
}

// gen's arena files are a pure function of the spec: the header's build
// time stays unset (the dataset's build marker keeps the build's duration),
// so they are byte-identical whatever --jobs and whenever built.
arena::BuilderOptions ArenaGenOptions() {
  arena::BuilderOptions o;
  o.record_build_time = false;
  return o;
}

Result<std::unique_ptr<BulkLoader>> LoadArena(const std::string& dir,
                                              const dataset::Spec&,
                                              unsigned jobs) {
  FLATBENCH_ASSIGN_OR_RETURN(
      auto l, arena::ArenaLoader::Create(dir, ArenaGenOptions(), jobs));
  return std::unique_ptr<BulkLoader>(std::move(l));
}

// The arena's merges write what gen writes: the same options, so a merged
// store is byte-identical to a bulk load of its state.
Result<std::unique_ptr<StoreWriter>> WriteArena(const std::string& dir,
                                                const WriterOptions& o) {
  WriterOptions wo = o;
  wo.jobs = std::max(1u, o.jobs);
  auto w = std::make_unique<arena::MergeWriter>(dir, ArenaGenOptions(), wo);
  FLATBENCH_RETURN_IF_ERROR(w->Open());
  return std::unique_ptr<StoreWriter>(std::move(w));
}

// A store's writer that needs only its folder (one writer thread).
template <Result<std::unique_ptr<StoreWriter>> (*kNew)(const std::string&)>
Result<std::unique_ptr<StoreWriter>> WriteInFolder(const std::string& dir,
                                                   const WriterOptions&) {
  return kNew(dir);
}

// A store whose every read sees the last write that ended before it (the
// file store opens each key's file per read; a write renames a whole file
// into place), read and written through its own two handles.
template <Result<std::unique_ptr<Backend>> (*kOpen)(const std::string&,
                                                    const OpenOptions&),
          Result<std::unique_ptr<StoreWriter>> (*kWrite)(const std::string&)>
Result<std::unique_ptr<LiveStore>> LiveByHandles(const std::string& dir,
                                                 const OpenOptions& options,
                                                 const WriterOptions&) {
  class Pair final : public LiveStore {
   public:
    Pair(std::unique_ptr<Backend> b, std::unique_ptr<StoreWriter> w)
        : b_(std::move(b)), w_(std::move(w)) {}
    Backend& backend() override { return *b_; }
    StoreWriter& writer() override { return *w_; }

   private:
    std::unique_ptr<Backend> b_;
    std::unique_ptr<StoreWriter> w_;
  };
  FLATBENCH_ASSIGN_OR_RETURN(auto b, kOpen(dir, options));
  FLATBENCH_ASSIGN_OR_RETURN(auto w, kWrite(dir));
  return std::unique_ptr<LiveStore>(
      std::make_unique<Pair>(std::move(b), std::move(w)));
}

// Why a store's reader cannot be measured while it is written.
constexpr const char kHeldTransaction[] =
    "its read sessions hold one transaction for their whole life, so they "
    "would read the state the pass began with, never the blocks written";
constexpr const char kReadVariant[] =
    "a read variant reads a store's files another way; the writing pass "
    "measures each store through its own live read path (name the store)";

// A store's loader that needs nothing of the spec and has one writer
// thread (SQLite, the fs store).
template <Result<std::unique_ptr<BulkLoader>> (*kNew)(const std::string&)>
Result<std::unique_ptr<BulkLoader>> LoadIgnoringSpec(const std::string& dir,
                                                     const dataset::Spec&,
                                                     unsigned) {
  return kNew(dir);
}

// A store's loader that needs nothing of the spec and writes with `jobs`
// threads.
template <Result<std::unique_ptr<BulkLoader>> (*kNew)(const std::string&,
                                                      unsigned)>
Result<std::unique_ptr<BulkLoader>> LoadWithJobs(const std::string& dir,
                                                 const dataset::Spec&,
                                                 unsigned jobs) {
  return kNew(dir, jobs);
}

#if FLATBENCH_HAVE_LMDB
// LMDB's map is sized up front: account values are at most 81 bytes, slot
// values 32.
Result<std::unique_ptr<BulkLoader>> LoadLmdb(const std::string& dir,
                                             const dataset::Spec& spec,
                                             unsigned) {
  const uint64_t pairs = spec.accounts + spec.storage_slots();
  const uint64_t bytes = spec.accounts * (kAccountKeySize + 81) +
                         spec.storage_slots() * (kStorageKeySize + 32);
  return baselines::NewLmdbLoader(dir, pairs, bytes);
}

Result<CheckedValue> CheckedLmdbGet(const std::string& dir, Table table,
                                    std::string_view key) {
  FLATBENCH_ASSIGN_OR_RETURN(
      baselines::LmdbPathResult walk,
      baselines::CheckedLmdbLookup(dir + "/data.mdb", TableName(table), key,
                                   KeySize(table)));
  return CheckedValue{walk.found, std::move(walk.value)};
}
#endif

#if FLATBENCH_HAVE_FS
// One file per key: the filesystem holding `dir` must have the inodes and
// blocks, and the store is built only up to fs_layout::kMaxPairs.
Status CheckFsRoom(const dataset::Spec& spec, const std::string& dir) {
  const uint64_t block = BlockBytes(dir);
  const dataset::FsStoreEstimate e =
      dataset::EstimateFsStore(spec, block != 0 ? block : 4096);
  const std::string figures = std::to_string(e.files) + " files, about " +
                              std::to_string(e.inodes) + " inodes and " +
                              HumanBytes(e.disk_bytes) + " of disk";
  const uint64_t free_inodes = FreeInodes(dir);
  const uint64_t free_bytes = FreeBytes(dir);
  const std::string have = std::to_string(free_inodes) + " inodes and " +
                           HumanBytes(free_bytes) + " free at " + dir;
  if (e.files > baselines::fs_layout::kMaxPairs) {
    return Status::Usage(
        "--backends fs: one file per key is built only up to smoke scale (" +
        std::to_string(baselines::fs_layout::kMaxPairs) + " pairs); " +
        spec.scale + " (" + std::to_string(spec.accounts) + " accounts x " +
        std::to_string(spec.slots_per_account) + " slots) would need " +
        figures + " (" + have + ")");
  }
  if ((free_inodes != 0 && e.inodes > free_inodes) ||
      (free_bytes != 0 && e.disk_bytes > free_bytes)) {
    return Status::RefuseOverwrite("--backends fs: needs " + figures +
                                   ", only " + have);
  }
  return Status::Ok();
}
#endif

static_assert(dataset::MaxPairsOf("fs") == baselines::fs_layout::kMaxPairs,
              "the fs store's facts give its layout's pair limit");

// The functions of the backend named `name`; none for one not compiled in.
constexpr Functions FunctionsOf(std::string_view name) {
  if (name == "arena") {
    return {.open = &OpenArena<arena::ReadPath::kMmap>,
            .load = &LoadArena,
            .write = &WriteArena,
            .live = &OpenArenaLive};
  }
  if (name == "arena+pread") {
    return {.open = &OpenArena<arena::ReadPath::kPread>,
            .no_live = kReadVariant};
  }
  if (name == "arena+direct") {
    return {.open = &OpenArena<arena::ReadPath::kDirect>,
            .no_live = kReadVariant};
  }
  if (name == "arena+cache") {
    return {.open = &OpenArena<arena::ReadPath::kCache>,
            .no_live = kReadVariant};
  }
  if (name == "arena+delta") {
    return {.open = &OpenArenaDelta, .no_live = kReadVariant};
  }
#if FLATBENCH_HAVE_ROCKSDB
  if (name == "rocksdb") {
    return {.open = &baselines::OpenRocksDb,
            .load = &LoadWithJobs<&baselines::NewRocksDbLoader>,
            .write = &baselines::NewRocksDbWriter,
            .live = &baselines::OpenRocksDbLive,
            .library_version = &baselines::RocksDbVersion};
  }
#endif
#if FLATBENCH_HAVE_LMDB
  if (name == "lmdb") {
    return {.open = &baselines::OpenLmdb,
            .load = &LoadLmdb,
            .write = &WriteInFolder<&baselines::NewLmdbWriter>,
            .live = &baselines::OpenLmdbLive,
            .checked_get = &CheckedLmdbGet,
            .library_version = &baselines::LmdbVersion};
  }
#endif
#if FLATBENCH_HAVE_POSTGRES
  if (name == "postgres") {
    return {.open = &baselines::OpenPostgres,
            .load = &LoadWithJobs<&baselines::NewPostgresLoader>,
            .write = &WriteInFolder<&baselines::NewPostgresWriter>,
            .no_live = kHeldTransaction};
  }
#endif
#if FLATBENCH_HAVE_SQLITE
  if (name == "sqlite") {
    return {.open = &baselines::OpenSqlite,
            .load = &LoadIgnoringSpec<&baselines::NewSqliteLoader>,
            .write = &WriteInFolder<&baselines::NewSqliteWriter>,
            .no_live = kHeldTransaction};
  }
#endif
#if FLATBENCH_HAVE_FS
  if (name == "fs") {
    return {.open = &baselines::OpenFsStore,
            .load = &LoadIgnoringSpec<&baselines::NewFsStoreLoader>,
            .write = &WriteInFolder<&baselines::NewFsStoreWriter>,
            .live = &LiveByHandles<&baselines::OpenFsStore,
                                   &baselines::NewFsStoreWriter>,
            .check_room = &CheckFsRoom};
  }
#endif
  return {};
}

// One entry per backend of the facts, in their order: built when this
// build holds its functions. Made on first use, not as a constant: GCC's
// UBSan build does not compare function pointers in a constant expression.
const std::array<Entry, std::size(dataset::kBackends)>& Entries() {
  static const auto entries = [] {
    std::array<Entry, std::size(dataset::kBackends)> out{};
    for (size_t i = 0; i < out.size(); ++i) {
      const Functions f = FunctionsOf(dataset::kBackends[i].name);
      out[i] = Entry{dataset::kBackends[i], f, f.open != nullptr};
    }
    return out;
  }();
  return entries;
}

}  // namespace

std::span<const Entry> All() { return Entries(); }

const Entry* Find(std::string_view name) {
  for (const Entry& e : Entries()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

Result<const Entry*> Built(std::string_view name, std::string_view flag) {
  const Entry* e = Find(name);
  if (e != nullptr && e->built) return e;
  std::string held;
  for (const std::string& n : Names()) held += (held.empty() ? "" : ", ") + n;
  return Status::Usage(
      std::string(flag) + ": " +
      (e == nullptr ? "unknown backend '" : "this build has no backend '") +
      std::string(name) + "' (this build holds " + held + ")");
}

std::vector<std::string> Stores() {
  std::vector<std::string> out;
  for (const Entry& e : Entries()) {
    if (e.built && e.is_store()) out.emplace_back(e.name);
  }
  return out;
}

std::vector<std::string> Names() {
  std::vector<std::string> out = Stores();
  for (const Entry& e : Entries()) {
    if (e.built && !e.is_store()) out.emplace_back(e.name);
  }
  return out;
}

std::vector<std::string> DefaultStores(const dataset::Spec& spec) {
  std::vector<std::string> out;
  for (const Entry& e : Entries()) {
    if (!e.built || !e.is_store()) continue;
    if (e.max_pairs != 0 &&
        spec.accounts + spec.storage_slots() > e.max_pairs) {
      continue;
    }
    out.emplace_back(e.name);
  }
  return out;
}

std::vector<std::string> DefaultVariants() {
  std::vector<std::string> out;
  for (const Entry& e : Entries()) {
    if (e.built && e.default_variant) out.emplace_back(e.name);
  }
  return out;
}

namespace {

// A built store's entry, which gen can build; a read variant names the
// store whose files it reads instead.
Result<const Entry*> BuildableStore(const std::string& name) {
  FLATBENCH_ASSIGN_OR_RETURN(const Entry* e, Built(name, "--backends"));
  if (!e->is_store()) {
    return Status::Usage("--backends: '" + name + "' reads the files of '" +
                         std::string(e->store) + "'; build those");
  }
  return e;
}

}  // namespace

Status CheckBuildable(const std::string& name, const dataset::Spec& spec,
                      const std::string& dir) {
  FLATBENCH_ASSIGN_OR_RETURN(const Entry* e, BuildableStore(name));
  if (e->check_room != nullptr) return e->check_room(spec, dir);
  return Status::Ok();
}

Result<std::unique_ptr<Backend>> Open(const std::string& name,
                                      const std::string& dir,
                                      const OpenOptions& options) {
  FLATBENCH_ASSIGN_OR_RETURN(const Entry* e, Built(name, "--backend"));
  return e->open(dir, options);
}

Result<std::unique_ptr<BulkLoader>> NewLoader(const std::string& name,
                                              const std::string& dir,
                                              const dataset::Spec& spec,
                                              unsigned jobs) {
  FLATBENCH_ASSIGN_OR_RETURN(const Entry* e, BuildableStore(name));
  return e->load(dir, spec, std::max(1u, jobs));
}

Status CheckWritable(const std::string& name) {
  FLATBENCH_ASSIGN_OR_RETURN(const Entry* e, BuildableStore(name));
  if (e->write != nullptr) return Status::Ok();
  return Status::Usage(name +
                       ": this store has no write path for age; build the "
                       "dataset without it, or build the aged state "
                       "directly with gen --blocks");
}

Result<std::unique_ptr<StoreWriter>> NewWriter(const std::string& name,
                                               const std::string& dir,
                                               const WriterOptions& options) {
  FLATBENCH_RETURN_IF_ERROR(CheckWritable(name));
  return BuildableStore(name).value()->write(dir, options);
}

Status CheckLive(const std::string& name, std::string_view flag) {
  FLATBENCH_ASSIGN_OR_RETURN(const Entry* e, Built(name, flag));
  if (e->live != nullptr) return Status::Ok();
  return Status::Usage(std::string(flag) + ": '" + name +
                       "' cannot be read while it is written: " +
                       (e->no_live != nullptr ? e->no_live : "no live hook"));
}

Result<std::unique_ptr<LiveStore>> OpenLive(const std::string& name,
                                            const std::string& dir,
                                            const OpenOptions& options,
                                            const WriterOptions& writer) {
  FLATBENCH_RETURN_IF_ERROR(CheckLive(name, "--write-while-reading"));
  return Find(name)->live(dir, options, writer);
}

std::vector<std::pair<std::string, std::string>> LibraryVersions() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Entry& e : Entries()) {
    if (e.built && e.library_version != nullptr) {
      out.emplace_back(e.library, e.library_version());
    }
  }
  return out;
}

}  // namespace flatbench::backends
