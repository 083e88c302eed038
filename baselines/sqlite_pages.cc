#include "baselines/sqlite_pages.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/files.h"

namespace flatbench::baselines {
namespace {

// SQLite 3 file format (sqlite.org/fileformat2.html).
constexpr size_t kFileHeader = 100;           // Page 1 starts with it.
constexpr size_t kHeaderPageSizeOffset = 16;  // 2 bytes; 1 means 65536.
constexpr uint8_t kInteriorIndex = 0x02;      // WITHOUT ROWID tables use these.
constexpr uint8_t kInteriorTable = 0x05;
constexpr uint8_t kLeafIndex = 0x0a;
constexpr uint8_t kLeafTable = 0x0d;
constexpr size_t kInteriorHeader = 12;  // Ends with the right-most child.
constexpr int kMaxBtreeDepth = 64;      // Far beyond any real tree.

uint32_t BigEndian16(const unsigned char* p) { return (p[0] << 8) | p[1]; }
uint32_t BigEndian32(const unsigned char* p) {
  return (static_cast<uint32_t>(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) |
         p[3];
}

class BtreeWalker {
 public:
  BtreeWalker(int fd, std::string path, size_t page_size, uint64_t pages)
      : fd_(fd),
        path_(std::move(path)),
        page_(page_size),
        pages_(pages),
        buf_(page_size) {}

  Status Read(uint32_t pgno) {
    if (pgno == 0 || pgno > pages_) {
      return Status::Corruption(path_ + ": a B-tree points at page " +
                                std::to_string(pgno) + ", outside the file (" +
                                std::to_string(pages_) + " pages)");
    }
    if (++read_ > pages_) {
      return Status::Corruption(path_ + ": the B-tree walk revisits pages");
    }
    const off_t at = static_cast<off_t>((pgno - 1) * page_);
    ssize_t n = pread(fd_, buf_.data(), page_, at);
    if (n < 0) return Status::FromErrno("read " + path_);
    if (static_cast<size_t>(n) != page_) {
      return Status::Corruption(path_ + ": short read of page " +
                                std::to_string(pgno));
    }
    return Status::Ok();
  }

  // The B-tree header of the page in the buffer (page 1's follows the file
  // header).
  const unsigned char* Header(uint32_t pgno) const {
    return buf_.data() + (pgno == 1 ? kFileHeader : 0);
  }
  static bool IsInterior(uint8_t t) {
    return t == kInteriorIndex || t == kInteriorTable;
  }
  static bool IsLeaf(uint8_t t) { return t == kLeafIndex || t == kLeafTable; }

  // Appends the children of the interior page `pgno` in the buffer.
  Status Children(uint32_t pgno, std::vector<uint32_t>* out) const {
    const unsigned char* h = Header(pgno);
    const size_t base = static_cast<size_t>(h - buf_.data());
    const uint32_t cells = BigEndian16(h + 3);
    if (base + kInteriorHeader + 2 * size_t{cells} > page_) {
      return Corrupt(pgno, std::to_string(cells) + " cells do not fit");
    }
    for (uint32_t i = 0; i < cells; ++i) {
      const size_t off = BigEndian16(h + kInteriorHeader + 2 * i);
      if (off < base + kInteriorHeader || off + 4 > page_) {
        return Corrupt(pgno, "cell " + std::to_string(i) + " at offset " +
                                 std::to_string(off));
      }
      out->push_back(BigEndian32(buf_.data() + off));
    }
    out->push_back(BigEndian32(h + 8));
    return Status::Ok();
  }

  Status Corrupt(uint32_t pgno, const std::string& what) const {
    return Status::Corruption(path_ + ": page " + std::to_string(pgno) + ": " +
                              what);
  }

  // Reads every interior page of the tree at `root`, and one leaf.
  Status Walk(uint32_t root) {
    FLATBENCH_RETURN_IF_ERROR(Read(root));
    uint8_t type = Header(root)[0];
    if (IsLeaf(type)) return Status::Ok();  // A one-page tree.
    if (!IsInterior(type)) return Corrupt(root, "not a B-tree page");
    std::vector<uint32_t> level;
    FLATBENCH_RETURN_IF_ERROR(Children(root, &level));
    for (int depth = 1; depth < kMaxBtreeDepth; ++depth) {
      // Every page of a level has the same kind: the first one says whether
      // this level is the leaves, where the walk stops.
      FLATBENCH_RETURN_IF_ERROR(Read(level.front()));
      if (IsLeaf(Header(level.front())[0])) return Status::Ok();
      std::vector<uint32_t> next;
      for (size_t i = 0; i < level.size(); ++i) {
        if (i > 0) FLATBENCH_RETURN_IF_ERROR(Read(level[i]));
        if (!IsInterior(Header(level[i])[0])) {
          return Corrupt(level[i], "expected an interior page at depth " +
                                       std::to_string(depth));
        }
        FLATBENCH_RETURN_IF_ERROR(Children(level[i], &next));
      }
      level = std::move(next);
    }
    return Corrupt(root,
                   "a B-tree deeper than " + std::to_string(kMaxBtreeDepth));
  }

  uint64_t read() const { return read_; }

 private:
  int fd_;
  std::string path_;
  size_t page_;
  uint64_t pages_;
  std::vector<unsigned char> buf_;
  uint64_t read_ = 0;
};

}  // namespace

Result<InteriorPreload> PreloadInteriorPages(
    const std::string& path, const std::vector<uint32_t>& roots) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.ok()) return Status::FromErrno("open " + path);
  struct stat st {};
  if (fstat(fd.get(), &st) != 0) return Status::FromErrno("stat " + path);
  unsigned char header[kFileHeader];
  if (pread(fd.get(), header, sizeof(header), 0) !=
      static_cast<ssize_t>(sizeof(header))) {
    return Status::Corruption(path + ": shorter than a SQLite header");
  }
  uint32_t page_size = BigEndian16(header + kHeaderPageSizeOffset);
  if (page_size == 1) page_size = 65536;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    return Status::Corruption(path + ": page size " +
                              std::to_string(page_size) + " in its header");
  }
  const uint64_t pages = static_cast<uint64_t>(st.st_size) / page_size;
  BtreeWalker walker(fd.get(), path, page_size, pages);
  FLATBENCH_RETURN_IF_ERROR(walker.Read(1));
  for (uint32_t root : roots) FLATBENCH_RETURN_IF_ERROR(walker.Walk(root));
  return InteriorPreload{walker.read(), walker.read() * page_size};
}

}  // namespace flatbench::baselines
