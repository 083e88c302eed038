#include "baselines/fs_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "baselines/fs_layout.h"

namespace flatbench::baselines {
namespace {

namespace fsys = std::filesystem;

// The put's temporary file, in the store's folder: the same filesystem as
// the trees, so the rename is atomic, and outside them, so that one left
// by a crash is no name in a table. Open removes it.
constexpr const char* kTemp = "put.tmp";

class FsWriter final : public StoreWriter {
 public:
  ~FsWriter() override {
    for (int fd : table_fds_) {
      if (fd >= 0) close(fd);
    }
    if (dir_fd_ >= 0) close(dir_fd_);
  }

  Status Open(const std::string& dir) {
    dir_ = dir;
    dir_fd_ = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd_ < 0) return Status::FromErrno("open " + dir);
    for (int t = 0; t < kNumTables; ++t) {
      paths_[t] = dir + "/" + TableName(static_cast<Table>(t));
      table_fds_[t] =
          open(paths_[t].c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (table_fds_[t] < 0 && errno == ENOENT) {
        return Status::MissingInput(dir + ": no filesystem store (no " +
                                    TableName(static_cast<Table>(t)) +
                                    " folder)");
      }
      if (table_fds_[t] < 0) return Status::FromErrno("open " + paths_[t]);
    }
    if (unlinkat(dir_fd_, kTemp, 0) != 0 && errno != ENOENT) {
      return Status::FromErrno("unlink " + dir + "/" + kTemp);
    }
    return Status::Ok();
  }

  // A block is its changes one after the other, each a whole file
  // operation: applied again, each leaves what it left the first time.
  Status ApplyBlock(std::span<const KeyChange> changes) override {
    for (const KeyChange& c : changes) {
      const int t = static_cast<int>(c.table);
      if (c.key.size() != KeySize(c.table)) {
        return Status::Usage(paths_[t] + ": a " + std::to_string(c.key.size()) +
                             "-byte key");
      }
      char rel[fs_layout::kPathBytes];
      fs_layout::RelativePath(c.key, rel);
      FLATBENCH_RETURN_IF_ERROR(c.erase ? Erase(t, rel) : Put(t, rel, c.value));
    }
    ++applied_;
    return Status::Ok();
  }

  // syncfs writes back every file's data, inode and folder entry of the
  // filesystem: what the puts' renames and the erases changed since the
  // last one (and whatever else on that filesystem is dirty). A fsync of
  // the touched folders alone would keep the names but not the files'
  // data, which only reached the page cache. No put syncs its file before
  // the rename: a crash may leave a key's file renamed without its data,
  // but only for a block after the last checkpoint, which the resume
  // applies again.
  Result<uint64_t> Checkpoint() override {
    FLATBENCH_RETURN_IF_ERROR(Sync());
    return applied_;
  }

  Status Finish() override {
    FLATBENCH_RETURN_IF_ERROR(Sync());
    for (int t = 0; t < kNumTables; ++t) {
      FLATBENCH_RETURN_IF_ERROR(Count(t));
    }
    return Status::Ok();
  }

  Settings Upkeep() const override { return upkeep_; }

 private:
  Status Sync() {
    if (syncfs(dir_fd_) != 0) return Status::FromErrno("syncfs " + dir_);
    return Status::Ok();
  }

  // The value into the temporary file, which then replaces the key's file
  // (or becomes it): a reader opens the old file or the new one.
  Status Put(int t, const char* rel, std::string_view value) {
    const std::string temp = dir_ + "/" + kTemp;
    const int fd =
        openat(dir_fd_, kTemp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Status::FromErrno("create " + temp);
    size_t done = 0;
    while (done < value.size()) {
      ssize_t n = write(fd, value.data() + done, value.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        Status st = Status::FromErrno("write " + temp);
        close(fd);
        return st;
      }
      done += static_cast<size_t>(n);
    }
    if (close(fd) != 0) return Status::FromErrno("close " + temp);
    if (renameat(dir_fd_, kTemp, table_fds_[t], rel) == 0) {
      return Status::Ok();
    }
    // A key whose folders do not exist yet (a new key's bytes).
    if (errno != ENOENT) {
      return Status::FromErrno("rename " + temp + " to " + paths_[t] + "/" +
                               rel);
    }
    FLATBENCH_RETURN_IF_ERROR(MakeFolders(t, rel));
    if (renameat(dir_fd_, kTemp, table_fds_[t], rel) != 0) {
      return Status::FromErrno("rename " + temp + " to " + paths_[t] + "/" +
                               rel);
    }
    return Status::Ok();
  }

  // The two folder levels of `rel` ("ab/cd/..."), where missing.
  Status MakeFolders(int t, const char* rel) {
    for (size_t len : {size_t{2}, size_t{5}}) {
      const std::string folder(rel, len);
      if (mkdirat(table_fds_[t], folder.c_str(), 0755) != 0 &&
          errno != EEXIST) {
        return Status::FromErrno("mkdir " + paths_[t] + "/" + folder);
      }
    }
    return Status::Ok();
  }

  // An erase of a key whose file is gone (or whose folders never were)
  // was applied before.
  Status Erase(int t, const char* rel) {
    if (unlinkat(table_fds_[t], rel, 0) == 0 || errno == ENOENT) {
      return Status::Ok();
    }
    return Status::FromErrno("unlink " + paths_[t] + "/" + rel);
  }

  // Table `t`'s files, folders (an erase leaves its folders, empty or
  // not) and bytes on disk (allocated blocks, not file lengths: a value of
  // under 100 bytes takes a whole block).
  Status Count(int t) {
    uint64_t files = 0, folders = 0, disk = 0;
    std::error_code ec;
    for (auto it = fsys::recursive_directory_iterator(paths_[t], ec);
         !ec && it != fsys::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec)) {
        ++folders;
        continue;
      }
      struct stat st {};
      if (lstat(it->path().c_str(), &st) != 0) {
        return Status::FromErrno("stat " + it->path().string());
      }
      ++files;
      disk += static_cast<uint64_t>(st.st_blocks) * 512;
    }
    if (ec) return Status::IOError(paths_[t] + ": " + ec.message());
    const std::string p = std::string(TableName(static_cast<Table>(t))) + ".";
    upkeep_.emplace_back(p + "files", std::to_string(files));
    upkeep_.emplace_back(p + "folders", std::to_string(folders));
    upkeep_.emplace_back(p + "disk_bytes", std::to_string(disk));
    return Status::Ok();
  }

  std::string dir_;
  int dir_fd_ = -1;
  int table_fds_[kNumTables] = {-1, -1};
  std::string paths_[kNumTables];
  uint64_t applied_ = 0;
  Settings upkeep_;
};

}  // namespace

Result<std::unique_ptr<StoreWriter>> NewFsStoreWriter(const std::string& dir) {
  auto w = std::make_unique<FsWriter>();
  FLATBENCH_RETURN_IF_ERROR(w->Open(dir));
  return std::unique_ptr<StoreWriter>(std::move(w));
}

}  // namespace flatbench::baselines
