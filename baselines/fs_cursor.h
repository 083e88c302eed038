#pragma once
// An ordered walk of one table of the filesystem store (fs_layout.h):
// folders and files listed in name order, which is key order.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace flatbench::baselines {

// Reads the whole file `name` (relative to the folder `dir_fd`, whose path
// `dir_path` is used in errors only) into *buf, growing it only when the
// file is larger than it; on success nothing is allocated otherwise. *size
// is the file's length. *found is false when there is no such file.
// kCorruption when a folder stands where a file belongs or the reverse;
// kIOError otherwise.
Status ReadValueFile(int dir_fd, const char* name, const std::string& dir_path,
                     std::vector<char>* buf, size_t* size, bool* found);

// Not thread-safe. Borrows `table_fd` (an open folder of one table).
class FsCursor {
 public:
  FsCursor(int table_fd, std::string table_path, size_t key_size);
  ~FsCursor();
  FsCursor(const FsCursor&) = delete;
  FsCursor& operator=(const FsCursor&) = delete;

  // Positions at the first key >= `start` (the first key for ""). A name
  // in the tree that does not fit the layout is kCorruption naming it.
  Status Seek(std::string_view start);
  // Moves to the next key. REQUIRES: Valid().
  Status Next();
  bool Valid() const { return valid_; }
  // The current pair; valid until the next Seek or Next.
  std::string_view key() const { return {key_, key_size_}; }
  std::string_view value() const { return {value_.data(), value_size_}; }

 private:
  Status List(int level, const std::string& name);
  Status Enter(int level, bool bounded);
  Status Settle();
  std::string Path(int level) const;

  int table_fd_;
  std::string table_path_;
  size_t key_size_;
  std::string start_hex_;
  // The sorted names of the current folder at each level: first byte,
  // second byte, files; and the position in each.
  std::vector<std::string> names_[3];
  size_t pos_[3] = {0, 0, 0};
  int leaf_fd_ = -1;
  bool valid_ = false;
  char key_[64];
  std::vector<char> value_;
  size_t value_size_ = 0;
};

}  // namespace flatbench::baselines
