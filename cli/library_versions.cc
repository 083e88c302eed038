#include "cli/library_versions.h"

#include <string>

#include "flatbench_config.h"
#if FLATBENCH_HAVE_ROCKSDB
#include <rocksdb/version.h>
#endif
#if FLATBENCH_HAVE_LMDB
#include <lmdb.h>
#endif

namespace flatbench::cli {

bench::Versions LibraryVersions() {
  bench::Versions v;
#if FLATBENCH_HAVE_ROCKSDB
  v.rocksdb = std::to_string(ROCKSDB_MAJOR) + "." +
              std::to_string(ROCKSDB_MINOR) + "." +
              std::to_string(ROCKSDB_PATCH);
#endif
#if FLATBENCH_HAVE_LMDB
  v.lmdb = mdb_version(nullptr, nullptr, nullptr);
#endif
  return v;
}

}  // namespace flatbench::cli
