#pragma once
// Filesystem guards for a dataset directory: telling "absent" from "not
// allowed", the lock that keeps two gens apart, and removal of an
// unfinished backend folder.

#include <string>

#include "common/status.h"

namespace flatbench::datagen {

// Sets whether `path` exists and is a directory. kIOError "<path>:
// permission denied" when the caller may not look; other stat errors as
// kIOError naming the path.
Status StatDir(const std::string& path, bool* exists, bool* is_dir);

// kIOError "<dir>: permission denied (cannot read it)" unless the caller
// may list `dir` and open what it holds.
Status CheckReadable(const std::string& dir);

// A non-blocking flock on a dataset directory, released when this is
// destroyed (or the process dies, so a killed gen never leaves it held).
// Writers (gen, age, merge) take it exclusive; readers (bench, verify,
// get) shared, so a store is never changed under a reader.
class DirLock {
 public:
  DirLock() = default;
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;
  // Exclusive. kRefuseOverwrite if another process holds it either way.
  Status Lock(const std::string& dir);
  // Shared. kRefuseOverwrite if another process holds it exclusive.
  Status LockShared(const std::string& dir);

 private:
  Status Take(const std::string& dir, bool exclusive);
  int fd_ = -1;
};

// Removes `backend_dir` with everything in it if `marker_path` (its
// completion marker) does not exist: an unfinished build. Never removes a
// complete backend. Returns whether it removed anything.
Result<bool> RemovePartialBackend(const std::string& backend_dir,
                                  const std::string& marker_path);

}  // namespace flatbench::datagen
