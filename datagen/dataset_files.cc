#include "datagen/dataset_files.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace flatbench::datagen {
namespace fs = std::filesystem;

Status StatDir(const std::string& path, bool* exists, bool* is_dir) {
  struct stat st;
  *exists = *is_dir = false;
  if (::stat(path.c_str(), &st) == 0) {
    *exists = true;
    *is_dir = S_ISDIR(st.st_mode);
    return Status::Ok();
  }
  if (errno == ENOENT || errno == ENOTDIR) return Status::Ok();
  if (errno == EACCES) return Status::IOError(path + ": permission denied");
  return Status::FromErrno(path);
}

Status CheckReadable(const std::string& dir) {
  if (::access(dir.c_str(), R_OK | X_OK) == 0) return Status::Ok();
  if (errno == EACCES) {
    return Status::IOError(dir + ": permission denied (cannot read it)");
  }
  return Status::FromErrno(dir);
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);  // Closing releases the lock.
}

Status DirLock::Lock(const std::string& dir) { return Take(dir, true); }

Status DirLock::LockShared(const std::string& dir) { return Take(dir, false); }

Status DirLock::Take(const std::string& dir, bool exclusive) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) {
    if (errno == EACCES) return Status::IOError(dir + ": permission denied");
    return Status::FromErrno(dir);
  }
  if (::flock(fd_, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0) {
    return Status::Ok();
  }
  if (errno != EWOULDBLOCK) return Status::FromErrno(dir + ": flock");
  if (!exclusive) {
    return Status::RefuseOverwrite(
        dir + ": another flatbench gen, age or merge is writing this dataset");
  }
  return Status::RefuseOverwrite(
      dir +
      ": another flatbench process is using this dataset (gen, age and "
      "merge write it only when no other gen, age, merge, bench, verify or "
      "get has it open)");
}

Result<bool> RemovePartialBackend(const std::string& backend_dir,
                                  const std::string& marker_path) {
  std::error_code ec;
  if (fs::exists(marker_path, ec)) return false;
  if (ec) return Status::IOError(marker_path + ": " + ec.message());
  if (!fs::exists(backend_dir, ec)) {
    if (ec) return Status::IOError(backend_dir + ": " + ec.message());
    return false;
  }
  fs::remove_all(backend_dir, ec);
  if (ec) {
    return Status::IOError(backend_dir + ": cannot remove: " + ec.message());
  }
  return true;
}

}  // namespace flatbench::datagen
