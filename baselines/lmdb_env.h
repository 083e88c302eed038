#pragma once
// An LMDB environment as every LMDB user here opens it (the reader, the
// loader, age's writer): two named databases, one per table, room for 512
// readers, and LMDB's assertion failures turned into flatbench's exit for
// bad data.

#include <lmdb.h>

#include <string>

#include "common/backend.h"
#include "common/status.h"

namespace flatbench::baselines {

// The databases of the environment, by table.
inline constexpr const char* kLmdbDbNames[kNumTables] = {"account", "storage"};

class LmdbEnv {
 public:
  LmdbEnv() = default;
  ~LmdbEnv() {
    if (env_ != nullptr) mdb_env_close(env_);
  }
  LmdbEnv(const LmdbEnv&) = delete;
  LmdbEnv& operator=(const LmdbEnv&) = delete;
  // mdb_env_open of `dir` with `flags`; `map_size` 0 keeps the map size
  // the environment records. Errors name `dir`.
  Status Create(const std::string& dir, unsigned flags, size_t map_size);
  MDB_env* get() const { return env_; }

 private:
  MDB_env* env_ = nullptr;
};

}  // namespace flatbench::baselines
