#include "datagen/registry.h"

#include "arena/backend.h"
#include "arena/loader.h"
#include "baselines/fs_layout.h"
#include "common/files.h"
#include "datagen/dataset.h"
#include "dataset/estimate.h"
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
#if FLATBENCH_HAVE_SQLITE
#include "baselines/sqlite_backend.h"
#endif
#if FLATBENCH_HAVE_FS
#include "baselines/fs_backend.h"
#endif

namespace flatbench::datagen {

std::vector<std::string> AvailableBackends() {
  std::vector<std::string> out = {"arena"};
#if FLATBENCH_HAVE_ROCKSDB
  out.push_back("rocksdb");
#endif
#if FLATBENCH_HAVE_LMDB
  out.push_back("lmdb");
#endif
  // Reference rows: measured, never gated unless thresholds.json names them.
#if FLATBENCH_HAVE_POSTGRES
  out.push_back("postgres");
#endif
#if FLATBENCH_HAVE_SQLITE
  out.push_back("sqlite");
#endif
#if FLATBENCH_HAVE_FS
  out.push_back("fs");
#endif
  return out;
}

std::vector<std::string> DefaultBackends(const dataset::Spec& spec) {
  std::vector<std::string> out;
  for (auto& name : AvailableBackends()) {
    if (name == "fs" && spec.accounts + spec.storage_slots() >
                            baselines::fs_layout::kMaxPairs) {
      continue;
    }
    out.push_back(std::move(name));
  }
  return out;
}

Status CheckBuildable(const std::string& name, const dataset::Spec& spec,
                      const std::string& dir) {
  if (name != "fs") return Status::Ok();
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

std::vector<std::string> ReadVariants() {
  return {"arena+pread", "arena+direct", "arena+cache"};
}

Result<std::unique_ptr<Backend>> OpenBackend(const std::string& name,
                                             const std::string& dir,
                                             const OpenOptions& options) {
  const arena::ReadPath paths[] = {
      arena::ReadPath::kMmap, arena::ReadPath::kPread, arena::ReadPath::kDirect,
      arena::ReadPath::kCache};
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
#if FLATBENCH_HAVE_SQLITE
  if (name == "sqlite") return baselines::OpenSqlite(dir, options);
#endif
#if FLATBENCH_HAVE_FS
  if (name == "fs") return baselines::OpenFsStore(dir, options);
#endif
  (void)dir;
  (void)options;
  return Status::Usage("--backend: unknown or not built backend '" + name +
                       "'");
}

Result<std::unique_ptr<BulkLoader>> NewLoader(const std::string& name,
                                              const std::string& dir,
                                              const dataset::Spec& spec) {
  if (StorageBackend(name) != name) {
    return Status::Usage("--backends: '" + name + "' reads the files of '" +
                         StorageBackend(name) + "'; build those");
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
#if FLATBENCH_HAVE_SQLITE
  if (name == "sqlite") return baselines::NewSqliteLoader(dir);
#endif
#if FLATBENCH_HAVE_FS
  if (name == "fs") return baselines::NewFsStoreLoader(dir);
#endif
  (void)dir;
  (void)spec;
  return Status::Usage("--backends: unknown or not built backend '" + name +
                       "'");
}

Result<std::unique_ptr<baselines::TableScan>> OpenTableScan(Backend& backend,
                                                            Table table) {
#if FLATBENCH_HAVE_ROCKSDB
  if (backend.Name() == "rocksdb") {
    return baselines::NewRocksDbScan(backend, table);
  }
#endif
#if FLATBENCH_HAVE_LMDB
  if (backend.Name() == "lmdb") return baselines::NewLmdbScan(backend, table);
#endif
#if FLATBENCH_HAVE_POSTGRES
  if (backend.Name() == "postgres") {
    return baselines::NewPostgresScan(backend, table);
  }
#endif
#if FLATBENCH_HAVE_SQLITE
  if (backend.Name() == "sqlite") {
    return baselines::NewSqliteScan(backend, table);
  }
#endif
#if FLATBENCH_HAVE_FS
  if (backend.Name() == "fs") return baselines::NewFsStoreScan(backend, table);
#endif
  (void)table;
  return Status::Usage(backend.Name() + ": no ordered walk in this build");
}

Status CheckStoreIntegrity(Backend& backend) {
#if FLATBENCH_HAVE_ROCKSDB
  if (backend.Name() == "rocksdb") {
    return baselines::VerifyRocksDbChecksums(backend);
  }
#endif
#if FLATBENCH_HAVE_SQLITE
  if (backend.Name() == "sqlite") {
    return baselines::CheckSqliteIntegrity(backend);
  }
#endif
  (void)backend;
  return Status::Ok();
}

}  // namespace flatbench::datagen
