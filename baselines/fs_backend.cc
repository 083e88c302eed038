// The filesystem store's reader and loader. One file, over 300 lines, because
// the session, the backend and the loader implement one interface over one
// layout (fs_layout.h) and share its helpers; the ordered walk is in
// fs_cursor.cc.
#include "baselines/fs_backend.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "baselines/fs_cursor.h"
#include "baselines/fs_layout.h"
#include "common/files.h"

namespace flatbench::baselines {
namespace {

namespace fsys = std::filesystem;

// Device cells read 4 KiB blocks inside a table's files; no file of this
// store holds one (a value is under 100 bytes), and naming all would hold
// one descriptor per key. A few in key order stand for them.
constexpr size_t kDataFileSample = 16;

std::string TableDir(const std::string& dir, Table t) {
  return dir + "/" + TableName(t);
}

class FsSession : public ReadSession {
 public:
  FsSession(const int* table_fds, const std::string* table_paths)
      : fds_(table_fds), paths_(table_paths), value_(4096) {}

  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    // A key of another width has no file in this table.
    if (key.size() != KeySize(table)) {
      *found = false;
      return Status::Ok();
    }
    char rel[fs_layout::kPathBytes];
    fs_layout::RelativePath(key, rel);
    const int t = static_cast<int>(table);
    size_t size = 0;
    FLATBENCH_RETURN_IF_ERROR(
        ReadValueFile(fds_[t], rel, paths_[t], &value_, &size, found));
    if (*found) *value = std::string_view(value_.data(), size);
    return Status::Ok();
  }

  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    *count = 0;
    const int t = static_cast<int>(table);
    if (cursors_[t] == nullptr) {
      cursors_[t] =
          std::make_unique<FsCursor>(fds_[t], paths_[t], KeySize(table));
    }
    FsCursor& c = *cursors_[t];
    if (limit == 0) return Status::Ok();
    FLATBENCH_RETURN_IF_ERROR(c.Seek(start));
    while (c.Valid()) {
      visitor->Visit(c.key(), c.value());
      if (++*count == limit) break;
      FLATBENCH_RETURN_IF_ERROR(c.Next());
    }
    return Status::Ok();
  }

 private:
  const int* fds_;
  const std::string* paths_;
  std::vector<char> value_;
  std::unique_ptr<FsCursor> cursors_[kNumTables];
};

class FsBackend : public Backend {
 public:
  ~FsBackend() override {
    for (int fd : fds_) {
      if (fd >= 0) close(fd);
    }
  }
  std::string Name() const override { return "fs"; }
  Result<std::unique_ptr<TableScan>> OpenScan(Table table) override;
  Result<std::unique_ptr<ReadSession>> NewSession() override {
    return std::unique_ptr<ReadSession>(new FsSession(fds_, paths_));
  }
  uint64_t ResidentMetadataBytes() const override { return 0; }
  Settings Describe() const override {
    return {
        {"layout",
         "one file per key: <table>/<hex byte 0>/<hex byte 1>/"
         "<hex key>, the value as the file's content"},
        {"get", "openat (relative to the table's folder) + read + close"},
        {"scan", "folders listed and sorted level by level from the seek key"},
        {"load",
         "ascending keys, one open(O_EXCL) + write + close per key; one "
         "syncfs, then the table folders renamed into place"},
        {"max_pairs", std::to_string(fs_layout::kMaxPairs)},
        {"cache", "none of its own: the OS page, dentry and inode caches"},
        {"preload",
         "nothing: the store has no metadata of its own; eviction drops "
         "file pages, not the kernel's dentry and inode caches"},
    };
  }
  std::vector<std::string> DataFiles(Table table) const override {
    std::vector<std::string> out;
    FsCursor c(fds_[static_cast<int>(table)], paths_[static_cast<int>(table)],
               KeySize(table));
    if (!c.Seek("").ok()) return out;
    while (c.Valid() && out.size() < kDataFileSample) {
      const std::string key(c.key());
      char rel[fs_layout::kPathBytes];
      fs_layout::RelativePath(key, rel);
      out.push_back(paths_[static_cast<int>(table)] + "/" + rel);
      if (!c.Next().ok()) break;
    }
    return out;
  }
  Result<uint64_t> CountPairs(Table table) const override {
    // The store keeps no count: every file of the table's folder is a pair.
    const std::string& root = paths_[static_cast<int>(table)];
    std::error_code ec;
    uint64_t n = 0;
    for (auto it = fsys::recursive_directory_iterator(root, ec);
         !ec && it != fsys::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) ++n;
    }
    if (ec) return Status::IOError(root + ": " + ec.message());
    return n;
  }

  int fds_[kNumTables] = {-1, -1};
  std::string paths_[kNumTables];
};

class FsLoader : public BulkLoader {
 public:
  explicit FsLoader(std::string dir) : dir_(std::move(dir)) {}
  ~FsLoader() override {
    if (leaf_fd_ >= 0) close(leaf_fd_);
    if (finished_) return;
    std::error_code ec;
    for (int t = 0; t < kNumTables; ++t) {
      fsys::remove_all(Loading(static_cast<Table>(t)), ec);
    }
  }

  Status Add(Table table, std::string_view key,
             std::string_view value) override {
    const int t = static_cast<int>(table);
    if (t < current_) {
      return Status::Usage("fs load: account pair after storage pairs");
    }
    if (key.size() != KeySize(table)) {
      return Status::Usage("fs load " + std::string(TableName(table)) + ": a " +
                           std::to_string(key.size()) + "-byte key");
    }
    if (++pairs_ > fs_layout::kMaxPairs) {
      return Status::Usage("fs load: more than " +
                           std::to_string(fs_layout::kMaxPairs) +
                           " pairs; the store is built only up to smoke scale");
    }
    while (current_ < t || !started_) FLATBENCH_RETURN_IF_ERROR(StartTable());
    if (!last_.empty() && key <= last_) {
      return Status::Corruption(std::string("fs load ") + TableName(table) +
                                ": key not ascending");
    }
    char rel[fs_layout::kPathBytes];
    fs_layout::RelativePath(key, rel);
    if (last_.empty() || key.compare(0, 2, last_, 0, 2) != 0) {
      FLATBENCH_RETURN_IF_ERROR(
          EnterLeaf(rel, last_.empty() || key[0] != last_[0]));
    }
    last_.assign(key);
    return WriteValue(rel + 6, value);
  }

  Status Finish() override {
    while (current_ < kNumTables - 1 || !started_) {
      FLATBENCH_RETURN_IF_ERROR(StartTable());
    }
    // One syncfs makes every file and folder durable, far faster than a
    // fsync per file; the renames then publish the tables.
    UniqueFd root(open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!root.ok()) return Status::FromErrno("open " + dir_);
    if (syncfs(root.get()) != 0) return Status::FromErrno("syncfs " + dir_);
    for (int t = 0; t < kNumTables; ++t) {
      const Table table = static_cast<Table>(t);
      if (std::rename(Loading(table).c_str(), TableDir(dir_, table).c_str())) {
        return Status::FromErrno("rename " + Loading(table));
      }
    }
    FLATBENCH_RETURN_IF_ERROR(SyncDir(dir_));
    finished_ = true;
    return Status::Ok();
  }

 private:
  std::string Loading(Table t) const { return TableDir(dir_, t) + ".loading"; }

  // Moves on to the next table (the first on the first call).
  Status StartTable() {
    if (started_) ++current_;
    started_ = true;
    last_.clear();
    const std::string path = Loading(static_cast<Table>(current_));
    if (mkdir(path.c_str(), 0755) != 0) {
      return Status::FromErrno("mkdir " + path);
    }
    return Status::Ok();
  }

  // Creates the folders of `rel` ("ab/cd/...") and holds the leaf open.
  Status EnterLeaf(const char* rel, bool new_first_level) {
    const std::string table = Loading(static_cast<Table>(current_));
    const std::string first = table + "/" + std::string(rel, 2);
    const std::string leaf = table + "/" + std::string(rel, 5);
    if (new_first_level && mkdir(first.c_str(), 0755) != 0 && errno != EEXIST) {
      return Status::FromErrno("mkdir " + first);
    }
    if (mkdir(leaf.c_str(), 0755) != 0) {
      return Status::FromErrno("mkdir " + leaf);
    }
    if (leaf_fd_ >= 0) close(leaf_fd_);
    leaf_fd_ = open(leaf.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (leaf_fd_ < 0) return Status::FromErrno("open " + leaf);
    leaf_path_ = leaf;
    return Status::Ok();
  }

  Status WriteValue(const char* name, std::string_view value) {
    UniqueFd f(
        openat(leaf_fd_, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!f.ok()) return Status::FromErrno("create " + leaf_path_ + "/" + name);
    size_t done = 0;
    while (done < value.size()) {
      ssize_t n = write(f.get(), value.data() + done, value.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Status::FromErrno("write " + leaf_path_ + "/" + name);
      done += static_cast<size_t>(n);
    }
    return Status::Ok();
  }

  std::string dir_;
  int current_ = 0;
  bool started_ = false;
  std::string last_;
  uint64_t pairs_ = 0;
  int leaf_fd_ = -1;
  std::string leaf_path_;
  bool finished_ = false;
};

class FsScan : public TableScan {
 public:
  FsScan(int fd, const std::string& path, Table table)
      : cursor_(fd, path, KeySize(table)) {}
  Status Next(bool* valid, std::string_view* key,
              std::string_view* value) override {
    Status st = started_ ? cursor_.Next() : cursor_.Seek("");
    started_ = true;
    *valid = st.ok() && cursor_.Valid();
    if (*valid) {
      *key = cursor_.key();
      *value = cursor_.value();
    }
    return st;
  }

 private:
  FsCursor cursor_;
  bool started_ = false;
};

}  // namespace

Result<std::unique_ptr<Backend>> OpenFsStore(const std::string& dir,
                                             const OpenOptions& /*options*/) {
  auto b = std::make_unique<FsBackend>();
  for (int t = 0; t < kNumTables; ++t) {
    b->paths_[t] = TableDir(dir, static_cast<Table>(t));
    b->fds_[t] = open(b->paths_[t].c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (b->fds_[t] < 0 && errno == ENOENT) {
      return Status::MissingInput(dir + ": no filesystem store (no " +
                                  TableName(static_cast<Table>(t)) +
                                  " folder)");
    }
    if (b->fds_[t] < 0) return Status::FromErrno("open " + b->paths_[t]);
  }
  return std::unique_ptr<Backend>(std::move(b));
}

Result<std::unique_ptr<BulkLoader>> NewFsStoreLoader(const std::string& dir) {
  return std::unique_ptr<BulkLoader>(new FsLoader(dir));
}

Result<std::unique_ptr<TableScan>> FsBackend::OpenScan(Table table) {
  const int t = static_cast<int>(table);
  return std::unique_ptr<TableScan>(new FsScan(fds_[t], paths_[t], table));
}

}  // namespace flatbench::baselines
