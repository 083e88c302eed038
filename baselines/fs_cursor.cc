#include "baselines/fs_cursor.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "baselines/fs_layout.h"
#include "common/hex.h"

namespace flatbench::baselines {
namespace {

bool IsLowerHex(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

}  // namespace

Status ReadValueFile(int dir_fd, const char* name, const std::string& dir_path,
                     std::vector<char>* buf, size_t* size, bool* found) {
  // Built only for an error: a read or a miss allocates nothing.
  auto path = [&] { return dir_path + "/" + name; };
  int fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *found = false;
    if (errno == ENOENT) return Status::Ok();
    if (errno == ENOTDIR) {
      return Status::Corruption(path() + ": a file where a folder belongs");
    }
    return Status::FromErrno("open " + path());
  }
  *found = true;
  *size = 0;
  for (;;) {
    if (*size == buf->size()) buf->resize(std::max<size_t>(4096, 2 * *size));
    ssize_t n = read(fd, buf->data() + *size, buf->size() - *size);
    if (n == 0) break;
    if (n < 0) {
      const int err = errno;
      close(fd);
      if (err == EISDIR) {
        return Status::Corruption(path() +
                                  ": a folder where a value file "
                                  "belongs");
      }
      errno = err;
      return Status::FromErrno("read " + path());
    }
    *size += static_cast<size_t>(n);
  }
  close(fd);
  return Status::Ok();
}

FsCursor::FsCursor(int table_fd, std::string table_path, size_t key_size)
    : table_fd_(table_fd),
      table_path_(std::move(table_path)),
      key_size_(key_size) {}

FsCursor::~FsCursor() {
  if (leaf_fd_ >= 0) close(leaf_fd_);
}

std::string FsCursor::Path(int level) const {
  std::string p = table_path_;
  for (int l = 0; l < level; ++l) p += "/" + names_[l][pos_[l]];
  return p;
}

Status FsCursor::List(int level, const std::string& path) {
  // The table's folder is opened afresh, never dup'ed: the held descriptor
  // is shared by every session, and a dup would share its directory offset
  // with cursors listing in other threads.
  std::string rel = ".";
  if (level > 0) rel = names_[0][pos_[0]];
  if (level == 2) rel += "/" + names_[1][pos_[1]];
  int fd = openat(table_fd_, rel.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == ENOTDIR) {
    return Status::Corruption(path + ": a file where a folder belongs");
  }
  if (fd < 0) return Status::FromErrno("open " + path);
  if (level == 2) {
    if (leaf_fd_ >= 0) close(leaf_fd_);
    leaf_fd_ = fd;
  }
  // fdopendir owns the descriptor it is given; the leaf's is kept for
  // reading its files, so it lists through a dup of its own.
  int list_fd = level == 2 ? dup(fd) : fd;
  if (list_fd < 0) return Status::FromErrno("dup " + path);
  DIR* d = fdopendir(list_fd);
  if (d == nullptr) {
    close(list_fd);
    return Status::FromErrno("opendir " + path);
  }
  // A dup shares its file offset with the original, which an earlier
  // listing left at the end: start from the beginning.
  rewinddir(d);
  std::vector<std::string>& names = names_[level];
  names.clear();
  const size_t want = level < 2 ? 2 : 2 * key_size_;
  const std::string prefix =
      level == 2 ? names_[0][pos_[0]] + names_[1][pos_[1]] : "";
  errno = 0;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (name.size() != want || !IsLowerHex(name) ||
        name.compare(0, prefix.size(), prefix) != 0) {
      closedir(d);
      return Status::Corruption(path + "/" + name +
                                ": a name outside the fs store's layout");
    }
    names.push_back(std::move(name));
  }
  const int err = errno;
  closedir(d);
  if (err != 0) {
    errno = err;
    return Status::FromErrno("readdir " + path);
  }
  std::sort(names.begin(), names.end());
  return Status::Ok();
}

Status FsCursor::Enter(int level, bool bounded) {
  FLATBENCH_RETURN_IF_ERROR(List(level, Path(level)));
  const std::vector<std::string>& names = names_[level];
  // The part of the seek key that this level's names compare with.
  const std::string bound =
      level < 2
          ? start_hex_.substr(std::min<size_t>(2 * level, start_hex_.size()), 2)
          : start_hex_;
  pos_[level] = bounded
                    ? static_cast<size_t>(
                          std::lower_bound(names.begin(), names.end(), bound) -
                          names.begin())
                    : 0;
  if (level == 2) return Status::Ok();
  for (int l = level + 1; l < 3; ++l) {
    names_[l].clear();
    pos_[l] = 0;
  }
  if (pos_[level] == names.size()) return Status::Ok();
  return Enter(level + 1, bounded && names[pos_[level]] == bound);
}

Status FsCursor::Settle() {
  for (;;) {
    if (pos_[2] < names_[2].size()) {
      const std::string& name = names_[2][pos_[2]];
      fs_layout::DecodeName(name, key_);  // List checked it is hex.
      bool found = false;
      FLATBENCH_RETURN_IF_ERROR(ReadValueFile(leaf_fd_, name.c_str(), Path(2),
                                              &value_, &value_size_, &found));
      if (!found) return Status::Corruption(Path(3) + ": listed, then gone");
      valid_ = true;
      return Status::Ok();
    }
    if (++pos_[1] < names_[1].size()) {
      FLATBENCH_RETURN_IF_ERROR(Enter(2, false));
      continue;
    }
    if (++pos_[0] < names_[0].size()) {
      FLATBENCH_RETURN_IF_ERROR(Enter(1, false));
      continue;
    }
    valid_ = false;
    return Status::Ok();
  }
}

Status FsCursor::Seek(std::string_view start) {
  valid_ = false;
  start_hex_ = ToHex(start);
  FLATBENCH_RETURN_IF_ERROR(Enter(0, true));
  return Settle();
}

Status FsCursor::Next() {
  ++pos_[2];
  return Settle();
}

}  // namespace flatbench::baselines
