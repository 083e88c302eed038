#pragma once
// The copy of a store a writing pass works on, so that the dataset stays
// as it was built: DIR.live beside the store's folder DIR (and the arena's
// log DIR.log as DIR.live.log), made file by file with a reflink where the
// filesystem shares extents (FICLONE: btrfs, XFS), else a plain copy. The
// copy is removed when this object goes; one a killed run left is removed
// before the next copy is made. No command reads DIR.live as a store, so a
// copy left half-written never passes for the dataset.

#include <memory>
#include <string>

#include "common/status.h"

namespace flatbench::bench {

class StoreCopy {
 public:
  // Copies the store in `dir`. kIOError naming the file that could not be
  // copied (the partial copy removed).
  static Result<std::unique_ptr<StoreCopy>> Make(const std::string& dir);
  ~StoreCopy();
  StoreCopy(const StoreCopy&) = delete;
  StoreCopy& operator=(const StoreCopy&) = delete;

  const std::string& dir() const { return dir_; }
  // "reflink" when every file was shared, else "copy".
  const std::string& method() const { return method_; }

  // The copy's folder for the store in `dir`.
  static std::string PathFor(const std::string& dir);

 private:
  explicit StoreCopy(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
  std::string method_ = "reflink";
};

}  // namespace flatbench::bench
