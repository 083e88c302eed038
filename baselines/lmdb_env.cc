#include "baselines/lmdb_env.h"

#include <cstdio>
#include <cstdlib>

#include "baselines/lmdb_meta.h"

namespace flatbench::baselines {
namespace {

// LMDB built with assertions (Debian's is) checks some page fields as it
// follows them; on a failure it calls this, then prints its own assertion
// line on stderr and aborts. That would be two lines, the first LMDB's, and
// a signal. This never returns: it prints flatbench's one line, naming the
// data file and folding LMDB's text in, and ends the process with the code
// for bad data, as abort() would have ended it. Only a damaged page gets
// here, and the readers that can meet one run in a child process (get,
// verify, bench's workers).
void OnLmdbAssert(MDB_env* env, const char* what) {
  const char* dir = nullptr;
  if (mdb_env_get_path(env, &dir) != MDB_SUCCESS || dir == nullptr) dir = "?";
  std::fprintf(stderr,
               "flatbench: %s/data.mdb: LMDB stopped on a damaged page (%s)\n",
               dir, what);
  std::_Exit(ExitCodeFor(Code::kCorruption));
}

}  // namespace

Status LmdbEnv::Create(const std::string& dir, unsigned flags,
                       size_t map_size) {
  FLATBENCH_RETURN_IF_ERROR(FromMdb(mdb_env_create(&env_), dir));
  // EINVAL when LMDB is built without assertions: nothing to fold in.
  mdb_env_set_assert(env_, &OnLmdbAssert);
  FLATBENCH_RETURN_IF_ERROR(FromMdb(mdb_env_set_maxdbs(env_, 2), dir));
  FLATBENCH_RETURN_IF_ERROR(FromMdb(mdb_env_set_maxreaders(env_, 512), dir));
  if (map_size != 0) {
    FLATBENCH_RETURN_IF_ERROR(
        FromMdb(mdb_env_set_mapsize(env_, map_size), dir));
  }
  return FromMdb(mdb_env_open(env_, dir.c_str(), flags, 0644), dir);
}

}  // namespace flatbench::baselines
