#include "baselines/lmdb_pages.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "baselines/lmdb_layout.h"
#include "common/files.h"

namespace flatbench::baselines {
namespace {

using lmdb_layout::kBranchPage;
using lmdb_layout::kDbDepthOffset;
using lmdb_layout::kDbRecordSize;
using lmdb_layout::kDbRootOffset;
using lmdb_layout::kFlagsOffset;
using lmdb_layout::kInvalidPage;
using lmdb_layout::kLowerOffset;
using lmdb_layout::kPageHeader;
using lmdb_layout::Load16;
using lmdb_layout::Load64;

class Walker {
 public:
  Walker(int fd, const std::string& path, size_t page_size, uint64_t pages)
      : fd_(fd),
        path_(path),
        page_(page_size),
        file_pages_(pages),
        buf_(page_size) {}

  // Reads branch page `pgno` at `level` (1 = root) of a tree of `depth`
  // levels, and below it every branch page.
  Status Walk(uint64_t pgno, int level, int depth, uint64_t* walked) {
    if (pgno >= file_pages_) {
      return Status::Corruption(path_ + ": branch points at page " +
                                std::to_string(pgno) + ", past the end (" +
                                std::to_string(file_pages_) + " pages)");
    }
    ssize_t n =
        pread(fd_, buf_.data(), page_, static_cast<off_t>(pgno * page_));
    if (n != static_cast<ssize_t>(page_)) {
      return n < 0 ? Status::FromErrno("read " + path_)
                   : Status::Corruption(path_ + ": short read of page " +
                                        std::to_string(pgno));
    }
    ++*walked;
    const char* p = buf_.data();
    if ((Load16(p + kFlagsOffset) & kBranchPage) == 0) {
      return Status::Corruption(path_ + ": page " + std::to_string(pgno) +
                                " should be a branch page");
    }
    const uint16_t lower = Load16(p + kLowerOffset);
    if (lower < kPageHeader || lower > page_) {
      return Status::Corruption(path_ + ": page " + std::to_string(pgno) +
                                " has a bad node count");
    }
    if (level + 1 >= depth) return Status::Ok();  // Children are leaves.
    // Copy the children first: the recursion reuses the buffer.
    std::vector<uint64_t> children;
    for (size_t i = kPageHeader; i < lower; i += 2) {
      const uint16_t off = Load16(p + i);
      if (off + 8u > page_) {
        return Status::Corruption(path_ + ": page " + std::to_string(pgno) +
                                  " has a node past its end");
      }
      // NODEPGNO: mn_lo | mn_hi << 16 | mn_flags << 32.
      const char* node = p + off;
      children.push_back(uint64_t{Load16(node)} |
                         (uint64_t{Load16(node + 2)} << 16) |
                         (uint64_t{Load16(node + 4)} << 32));
    }
    for (uint64_t c : children) {
      FLATBENCH_RETURN_IF_ERROR(Walk(c, level + 1, depth, walked));
    }
    return Status::Ok();
  }

  Status ReadMeta() {
    for (uint64_t pgno : {0ULL, 1ULL}) {
      if (pread(fd_, buf_.data(), page_, static_cast<off_t>(pgno * page_)) !=
          static_cast<ssize_t>(page_)) {
        return Status::Corruption(path_ + ": cannot read meta page " +
                                  std::to_string(pgno));
      }
    }
    return Status::Ok();
  }

 private:
  int fd_;
  std::string path_;
  size_t page_;
  uint64_t file_pages_;
  std::vector<char> buf_;
};

}  // namespace

Result<BranchPreload> PreloadBranchPages(MDB_env* env, MDB_txn* txn,
                                         const std::string& path,
                                         const char* const* names, int count) {
  MDB_stat env_stat;
  if (mdb_env_stat(env, &env_stat) != MDB_SUCCESS) {
    return Status::IOError(path + ": mdb_env_stat failed");
  }
  const size_t page = env_stat.ms_psize;
  MDB_dbi main_dbi;
  if (mdb_dbi_open(txn, nullptr, 0, &main_dbi) != MDB_SUCCESS) {
    return Status::Corruption(path + ": cannot open the main database");
  }
  UniqueFd file(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.ok()) return Status::FromErrno("open " + path);
  const int fd = file.get();
  const off_t size = lseek(fd, 0, SEEK_END);
  if (size < 0) return Status::FromErrno("seek " + path);
  Walker walker(fd, path, page, static_cast<uint64_t>(size) / page);
  FLATBENCH_RETURN_IF_ERROR(walker.ReadMeta());
  BranchPreload out;
  out.pages = 2;
  for (int i = 0; i < count; ++i) {
    MDB_val key{std::strlen(names[i]), const_cast<char*>(names[i])};
    MDB_val rec;
    if (mdb_get(txn, main_dbi, &key, &rec) != MDB_SUCCESS ||
        rec.mv_size != kDbRecordSize) {
      return Status::Corruption(path + ": no record of database " + names[i]);
    }
    const char* r = static_cast<const char*>(rec.mv_data);
    const int depth = Load16(r + kDbDepthOffset);
    const uint64_t root = Load64(r + kDbRootOffset);
    MDB_dbi dbi;
    MDB_stat st;
    if (mdb_dbi_open(txn, names[i], 0, &dbi) != MDB_SUCCESS ||
        mdb_stat(txn, dbi, &st) != MDB_SUCCESS) {
      return Status::Corruption(path + ": cannot stat database " + names[i]);
    }
    uint64_t walked = 0;
    if (depth > 1 && root != kInvalidPage) {
      FLATBENCH_RETURN_IF_ERROR(walker.Walk(root, 1, depth, &walked));
    }
    if (walked != st.ms_branch_pages) {
      return Status::Corruption(path + ": database " + names[i] + " has " +
                                std::to_string(st.ms_branch_pages) +
                                " branch pages, the walk found " +
                                std::to_string(walked));
    }
    out.pages += walked;
  }
  out.bytes = out.pages * page;
  return out;
}

}  // namespace flatbench::baselines
