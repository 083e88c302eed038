#include "cli/backends.h"

#include "arena/backend.h"
#include "arena/loader.h"
#include "datagen/dataset.h"
#include "flatbench_config.h"
#if FLATBENCH_HAVE_ROCKSDB
#include "baselines/rocksdb_backend.h"
#endif
#if FLATBENCH_HAVE_LMDB
#include "baselines/lmdb_backend.h"
#endif
#if FLATBENCH_HAVE_POSTGRES
#include "baselines/postgres_backend.h"
#endif

namespace flatbench::cli {

std::vector<std::string> AvailableBackends() {
  std::vector<std::string> out = {"arena"};
#if FLATBENCH_HAVE_ROCKSDB
  out.push_back("rocksdb");
#endif
#if FLATBENCH_HAVE_LMDB
  out.push_back("lmdb");
#endif
#if FLATBENCH_HAVE_POSTGRES
  out.push_back("postgres");
#endif
  return out;
}

std::vector<std::string> ReadVariants() {
  return {"arena+pread", "arena+direct"};
}

Result<std::unique_ptr<Backend>> OpenBackend(const std::string& name,
                                             const std::string& dir,
                                             const OpenOptions& options) {
  const arena::ReadPath paths[] = {arena::ReadPath::kMmap,
                                   arena::ReadPath::kPread,
                                   arena::ReadPath::kDirect};
  for (arena::ReadPath path : paths) {
    const std::string variant =
        path == arena::ReadPath::kMmap
            ? "arena"
            : std::string("arena+") + arena::ReadPathName(path);
    if (name != variant) continue;
    FLATBENCH_ASSIGN_OR_RETURN(auto b,
                               arena::ArenaBackend::Open(dir, options, path));
    return std::unique_ptr<Backend>(std::move(b));
  }
#if FLATBENCH_HAVE_ROCKSDB
  if (name == "rocksdb") return baselines::OpenRocksDb(dir, options);
#endif
#if FLATBENCH_HAVE_LMDB
  if (name == "lmdb") return baselines::OpenLmdb(dir, options);
#endif
#if FLATBENCH_HAVE_POSTGRES
  if (name == "postgres") return baselines::OpenPostgres(dir, options);
#endif
  (void)dir;
  (void)options;
  return Status::Usage("--backend: unknown or not built backend '" + name +
                       "'");
}

Result<std::unique_ptr<BulkLoader>> NewLoader(const std::string& name,
                                              const std::string& dir,
                                              const datagen::Spec& spec) {
  if (datagen::StorageBackend(name) != name) {
    return Status::Usage("--backends: '" + name + "' reads the files of '" +
                         datagen::StorageBackend(name) + "'; build those");
  }
  if (name == "arena") {
    FLATBENCH_ASSIGN_OR_RETURN(auto l, arena::ArenaLoader::Create(dir));
    return std::unique_ptr<BulkLoader>(std::move(l));
  }
#if FLATBENCH_HAVE_ROCKSDB
  if (name == "rocksdb") return baselines::NewRocksDbLoader(dir);
#endif
#if FLATBENCH_HAVE_LMDB
  if (name == "lmdb") {
    // Account values are at most 81 bytes, slot values 32.
    uint64_t pairs = spec.accounts + spec.storage_slots();
    uint64_t bytes = spec.accounts * (kAccountKeySize + 81) +
                     spec.storage_slots() * (kStorageKeySize + 32);
    return baselines::NewLmdbLoader(dir, pairs, bytes);
  }
#endif
#if FLATBENCH_HAVE_POSTGRES
  if (name == "postgres") return baselines::NewPostgresLoader(dir);
#endif
  (void)dir;
  (void)spec;
  return Status::Usage("--backends: unknown or not built backend '" + name +
                       "'");
}

}  // namespace flatbench::cli
