#pragma once
// The backend registry: the backends this build holds, by name, and how to
// open or load each. Its own library (flatbench_registry), apart from
// flatbench_datagen, because it links every backend.

#include <memory>
#include <string>
#include <vector>

#include "baselines/table_scan.h"
#include "common/backend.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

// Every backend compiled into this build, in canonical order (what `gen`
// builds by default).
std::vector<std::string> AvailableBackends();
// AvailableBackends() less those that are not built at `spec`'s scale (the
// fs store above smoke scale): what gen and gonogo build by default.
std::vector<std::string> DefaultBackends(const dataset::Spec& spec);
// Refuses, before anything is written, a backend that cannot be built for
// `spec` in `dir`: the fs store above smoke scale (kUsage), or where the
// filesystem lacks the inodes or bytes it needs (kRefuseOverwrite); both
// messages give the file, inode and disk figures and what is free.
Status CheckBuildable(const std::string& name, const dataset::Spec& spec,
                      const std::string& dir);
// Read variants: other ways of reading a backend's files, named
// "BACKEND+HOW" ("arena+pread", "arena+direct", "arena+cache"). They open the
// files of BACKEND (StorageBackend) and cannot be built on their own.
std::vector<std::string> ReadVariants();
// Opens backend `name` whose files live in `dir`.
Result<std::unique_ptr<Backend>> OpenBackend(const std::string& name,
                                             const std::string& dir,
                                             const OpenOptions& options);
// A loader that builds backend `name` for `spec` in the (empty) `dir`.
Result<std::unique_ptr<BulkLoader>> NewLoader(const std::string& name,
                                              const std::string& dir,
                                              const dataset::Spec& spec);

// An ordered walk of `table` of a baseline `backend` (opened by
// OpenBackend), for the full verify; kUsage for the arena, which walks its
// own files, and for a backend this build does not hold.
Result<std::unique_ptr<baselines::TableScan>> OpenTableScan(Backend& backend,
                                                            Table table);
// The baseline's own whole-store check where it has one: RocksDB's
// VerifyChecksum of every SST file, SQLite's integrity_check. Ok for the
// others (LMDB and the fs store keep no checksums; PostgreSQL checks its
// pages' checksums as OpenTableScan's walk reads them).
Status CheckStoreIntegrity(Backend& backend);

}  // namespace flatbench::datagen
