#include "baselines/lmdb_path.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "baselines/lmdb_layout.h"
#include "baselines/lmdb_meta.h"
#include "common/files.h"

namespace flatbench::baselines {
namespace {

using lmdb_layout::kBranchPage;
using lmdb_layout::kDbBranchOffset;
using lmdb_layout::kDbDepthOffset;
using lmdb_layout::kDbEntriesOffset;
using lmdb_layout::kDbFlagsOffset;
using lmdb_layout::kDbLeafOffset;
using lmdb_layout::kDbOverflowOffset;
using lmdb_layout::kDbRecordSize;
using lmdb_layout::kDbRootOffset;
using lmdb_layout::kFlagsOffset;
using lmdb_layout::kInvalidPage;
using lmdb_layout::kLeafPage;
using lmdb_layout::kLowerOffset;
using lmdb_layout::kPageHeader;
using lmdb_layout::kUpperOffset;
using lmdb_layout::Load16;
using lmdb_layout::Load64;

// Beyond lmdb_layout.h: a node is data size (lo, hi) or, in a branch, the
// child page number (lo, hi, flags); flags; key size; key; data.
constexpr size_t kNodeHeader = 8;
constexpr uint16_t kSubData = 0x02;  // F_SUBDATA: a named database's record
// The main database's MDB_db in a meta page: after the page header, magic,
// version, map address, map size and the free database's record.
constexpr size_t kMainDbOffset = kPageHeader + 24 + 48;
constexpr int kMaxDepth = 32;
constexpr size_t kMaxKeySize = 511;  // MDB_MAXKEYSIZE

// A tree's record: its depth and root page, and the pages and pairs it
// counts (what mdb_stat reports).
struct Tree {
  int depth = 0;
  uint64_t root = kInvalidPage;
  uint64_t branch_pages = 0, leaf_pages = 0, overflow_pages = 0, entries = 0;
};

Result<Tree> ParseRecord(const char* r, const std::string& what) {
  Tree t;
  t.depth = Load16(r + kDbDepthOffset);
  t.root = Load64(r + kDbRootOffset);
  t.branch_pages = Load64(r + kDbBranchOffset);
  t.leaf_pages = Load64(r + kDbLeafOffset);
  t.overflow_pages = Load64(r + kDbOverflowOffset);
  t.entries = Load64(r + kDbEntriesOffset);
  if (Load16(r + kDbFlagsOffset) != 0) {
    return Status::Corruption(what + " has flags this loader never sets");
  }
  const bool empty = t.depth == 0 && t.root == kInvalidPage;
  if (!empty && (t.depth < 1 || t.depth > kMaxDepth)) {
    return Status::Corruption(what + " has depth " + std::to_string(t.depth));
  }
  return t;
}

class PathWalker {
 public:
  PathWalker(int fd, const std::string& path, const LmdbMeta& meta)
      : fd_(fd),
        path_(path),
        page_size_(meta.page_size),
        last_page_(meta.last_page),
        buf_(meta.page_size) {}

  uint64_t pages() const { return pages_; }

  Status ReadPage(uint64_t pgno) {
    size_t done = 0;
    while (done < page_size_) {
      const ssize_t n = ::pread(fd_, buf_.data() + done, page_size_ - done,
                                static_cast<off_t>(pgno * page_size_ + done));
      if (n < 0) return Status::FromErrno("read " + path_);
      if (n == 0) {
        return Status::Corruption(Where(pgno) + " is past the end of the file");
      }
      done += static_cast<size_t>(n);
    }
    ++pages_;
    return Status::Ok();
  }
  const char* page() const { return buf_.data(); }

  // Descends `tree` to `key`. `key_size` is the size every key of the tree
  // has, or 0 when they vary (the main database). `subdata`: the tree's leaf
  // nodes are named databases' records.
  Status Lookup(const Tree& tree, std::string_view key, size_t key_size,
                bool subdata, LmdbPathResult* out) {
    out->found = false;
    if (tree.root == kInvalidPage) return Status::Ok();  // Empty.
    std::optional<std::string> lo;
    std::optional<std::string> hi;
    uint64_t pgno = tree.root;
    for (int level = 1;; ++level) {
      const bool leaf = level == tree.depth;
      FLATBENCH_RETURN_IF_ERROR(CheckPointer(pgno, level));
      FLATBENCH_RETURN_IF_ERROR(ReadPage(pgno));
      std::vector<Node> nodes;
      FLATBENCH_RETURN_IF_ERROR(
          CheckPage(pgno, leaf, key_size, subdata, lo, hi, &nodes));
      if (leaf) return FindInLeaf(nodes, key, out);
      // The last node whose key is <= `key`; node 0 stands for everything
      // below node 1.
      size_t i = 0;
      while (i + 1 < nodes.size() && nodes[i + 1].key <= key) ++i;
      if (i > 0) lo = std::string(nodes[i].key);
      if (i + 1 < nodes.size()) hi = std::string(nodes[i + 1].key);
      pgno = nodes[i].child;
    }
  }

  // Reads and checks every page of `tree`, depth first, as Lookup checks
  // the pages on one key's path, each against the key range its parent
  // gives; a page reached twice is damage. Then the pages and pairs found
  // must be those the tree's record counts. `name` names the tree ("the
  // main database", "database 'account'"). When `records` is set, the
  // leaves' nodes (named databases' records) are copied into it as (name,
  // record) pairs.
  Status WalkTree(const Tree& tree, size_t key_size, bool subdata,
                  const std::string& name,
                  std::vector<std::pair<std::string, std::string>>* records) {
    if (seen_.empty()) seen_.resize(last_page_ + 1);
    role_ = "in " + name;
    const std::string what = "the record of " + name;
    Tree found;
    if (tree.root != kInvalidPage) {  // Else empty: it must count nothing.
      FLATBENCH_RETURN_IF_ERROR(Visit(tree.root, 1, tree.depth, key_size,
                                      subdata, std::nullopt, std::nullopt,
                                      records, &found));
    }
    auto differ = [&](const char* field, uint64_t counted, uint64_t walked) {
      return Status::Corruption(path_ + ": " + what + " counts " +
                                std::to_string(counted) + " " + field +
                                ", its tree holds " + std::to_string(walked));
    };
    if (found.branch_pages != tree.branch_pages) {
      return differ("branch pages", tree.branch_pages, found.branch_pages);
    }
    if (found.leaf_pages != tree.leaf_pages) {
      return differ("leaf pages", tree.leaf_pages, found.leaf_pages);
    }
    if (tree.overflow_pages != 0) {
      return differ("overflow pages", tree.overflow_pages, 0);
    }
    if (found.entries != tree.entries) {
      return differ("pairs", tree.entries, found.entries);
    }
    return Status::Ok();
  }

 private:
  struct Node {
    std::string_view key;
    std::string_view data;  // Leaves only.
    uint64_t child = 0;     // Branches only.
    uint16_t flags = 0;
  };

  std::string Where(uint64_t pgno) const {
    return path_ + ": page " + std::to_string(pgno);
  }

  Status CheckPointer(uint64_t pgno, int level) const {
    if (pgno < 2 || pgno > last_page_) {
      return Status::Corruption(
          path_ + ": a " + (level == 1 ? "root" : "child") +
          " pointer names page " + std::to_string(pgno) +
          ", outside pages 2.." + std::to_string(last_page_));
    }
    return Status::Ok();
  }

  // One page of WalkTree at `level` (1: the root) of a tree `depth` deep,
  // whose keys must lie in [lo, hi); adds what it holds to *found.
  Status Visit(uint64_t pgno, int level, int depth, size_t key_size,
               bool subdata, const std::optional<std::string>& lo,
               const std::optional<std::string>& hi,
               std::vector<std::pair<std::string, std::string>>* records,
               Tree* found) {
    const bool leaf = level == depth;
    FLATBENCH_RETURN_IF_ERROR(CheckPointer(pgno, level));
    if (seen_[pgno]) {
      return Status::Corruption(Where(pgno) + " is reached twice");
    }
    seen_[pgno] = true;
    FLATBENCH_RETURN_IF_ERROR(ReadPage(pgno));
    std::vector<Node> nodes;
    FLATBENCH_RETURN_IF_ERROR(
        CheckPage(pgno, leaf, key_size, subdata, lo, hi, &nodes));
    if (leaf) {
      ++found->leaf_pages;
      found->entries += nodes.size();
      if (records != nullptr) {
        for (const Node& n : nodes) records->emplace_back(n.key, n.data);
      }
      return Status::Ok();
    }
    ++found->branch_pages;
    // The nodes point into the page buffer, which the children reuse: copy
    // each child's page number and key range first.
    struct Child {
      uint64_t pgno;
      std::optional<std::string> lo, hi;
    };
    std::vector<Child> children;
    for (size_t i = 0; i < nodes.size(); ++i) {
      children.push_back(
          {nodes[i].child, i > 0 ? std::string(nodes[i].key) : lo,
           i + 1 < nodes.size() ? std::string(nodes[i + 1].key) : hi});
    }
    for (const Child& c : children) {
      FLATBENCH_RETURN_IF_ERROR(Visit(c.pgno, level + 1, depth, key_size,
                                      subdata, c.lo, c.hi, records, found));
    }
    return Status::Ok();
  }

  Status CheckPage(uint64_t pgno, bool leaf, size_t key_size, bool subdata,
                   const std::optional<std::string>& lo,
                   const std::optional<std::string>& hi,
                   std::vector<Node>* nodes) const {
    const char* p = buf_.data();
    auto bad = [&](const std::string& why) {
      return Status::Corruption(Where(pgno) + " (a " +
                                (leaf ? "leaf" : "branch") + " " + role_ +
                                "): " + why);
    };
    if (Load64(p) != pgno) {
      return bad("its header names page " + std::to_string(Load64(p)));
    }
    const uint16_t flags = Load16(p + kFlagsOffset);
    if (flags != (leaf ? kLeafPage : kBranchPage)) {
      return bad("page flags " + std::to_string(flags) + ", expected " +
                 std::to_string(leaf ? kLeafPage : kBranchPage));
    }
    const size_t lower = Load16(p + kLowerOffset);
    const size_t upper = Load16(p + kUpperOffset);
    if (lower < kPageHeader + 2 || (lower - kPageHeader) % 2 != 0 ||
        lower > upper || upper > page_size_ || (!leaf && lower < 20)) {
      return bad("bad bounds (lower " + std::to_string(lower) + ", upper " +
                 std::to_string(upper) + ")");
    }
    const size_t count = (lower - kPageHeader) / 2;
    // Where each node starts and ends, to check that they tile
    // [upper, page end) exactly, as LMDB keeps them.
    std::vector<std::pair<size_t, size_t>> spans;
    for (size_t i = 0; i < count; ++i) {
      const size_t off = Load16(p + kPageHeader + 2 * i);
      if (off < upper || off + kNodeHeader > page_size_) {
        return bad("node " + std::to_string(i) + " outside the node area");
      }
      const char* n = p + off;
      Node node;
      node.flags = Load16(n + 4);
      const size_t ksize = Load16(n + 6);
      size_t size = kNodeHeader + ksize;
      size_t dsize = 0;
      if (leaf) {
        dsize = Load16(n) | (size_t{Load16(n + 2)} << 16);
        size += dsize;
        if (node.flags != (subdata ? kSubData : 0) ||
            (subdata && dsize != kDbRecordSize)) {
          return bad("node " + std::to_string(i) + " has flags " +
                     std::to_string(node.flags) + " and " +
                     std::to_string(dsize) + " data bytes");
        }
      } else {
        node.child = Load16(n) | (uint64_t{Load16(n + 2)} << 16) |
                     (uint64_t{node.flags} << 32);
      }
      size += size % 2;  // Nodes start on even offsets.
      if (off + size > page_size_) {
        return bad("node " + std::to_string(i) + " runs past the page");
      }
      node.key = std::string_view(n + kNodeHeader, ksize);
      node.data = std::string_view(n + kNodeHeader + ksize, dsize);
      spans.emplace_back(off, off + size);
      // A branch's node 0 stands for everything below node 1: its key is
      // not compared.
      if (leaf || i > 0) {
        if (key_size != 0 ? ksize != key_size
                          : ksize == 0 || ksize > kMaxKeySize) {
          return bad("node " + std::to_string(i) + " has a " +
                     std::to_string(ksize) + "-byte key");
        }
        const Node* prev =
            nodes->size() > (leaf ? 0u : 1u) ? &nodes->back() : nullptr;
        if (prev != nullptr && !(prev->key < node.key)) {
          return bad("keys out of order at node " + std::to_string(i));
        }
        if ((lo && node.key < *lo) || (hi && !(node.key < *hi))) {
          return bad("node " + std::to_string(i) +
                     "'s key lies outside the range its parent gives");
        }
      }
      nodes->push_back(node);
    }
    std::sort(spans.begin(), spans.end());
    size_t at = upper;
    for (const auto& [begin, end] : spans) {
      if (begin != at) return bad("nodes overlap or leave a gap");
      at = end;
    }
    if (at != page_size_) return bad("nodes leave a gap at the page's end");
    return Status::Ok();
  }

  static Status FindInLeaf(const std::vector<Node>& nodes, std::string_view key,
                           LmdbPathResult* out) {
    for (const Node& n : nodes) {
      if (n.key == key) {
        out->found = true;
        out->value.assign(n.data);
        break;
      }
    }
    return Status::Ok();
  }

  int fd_;
  std::string path_;
  size_t page_size_;
  uint64_t last_page_;
  std::vector<char> buf_;
  uint64_t pages_ = 0;
  std::vector<bool> seen_;  // By page number; WalkTree's pages so far.
  // Where a page sits, for messages.
  std::string role_ = "on the lookup's path";
};

// The newer meta page, read and checked, and the main database's record in
// it.
Result<Tree> ReadMain(PathWalker* walker, const std::string& path,
                      const LmdbMeta& meta) {
  FLATBENCH_RETURN_IF_ERROR(walker->ReadPage(meta.meta_page));
  return ParseRecord(walker->page() + kMainDbOffset,
                     path + ": meta page " + std::to_string(meta.meta_page) +
                         "'s main database record");
}

}  // namespace

Result<uint64_t> CheckLmdbTrees(const std::string& path,
                                const std::vector<LmdbTreeSpec>& dbs) {
  FLATBENCH_ASSIGN_OR_RETURN(const LmdbMeta meta, CheckLmdbDataFile(path));
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.ok()) return Status::FromErrno("open " + path);
  PathWalker walker(fd.get(), path, meta);
  FLATBENCH_ASSIGN_OR_RETURN(const Tree main, ReadMain(&walker, path, meta));
  std::vector<std::pair<std::string, std::string>> records;
  FLATBENCH_RETURN_IF_ERROR(
      walker.WalkTree(main, 0, true, "the main database", &records));
  for (const LmdbTreeSpec& db : dbs) {
    auto it = std::find_if(records.begin(), records.end(),
                           [&](const auto& r) { return r.first == db.name; });
    if (it == records.end()) {
      return Status::Corruption(path + ": no database '" + db.name + "' in it");
    }
    const std::string name = "database '" + db.name + "'";
    FLATBENCH_ASSIGN_OR_RETURN(
        const Tree tree,
        ParseRecord(it->second.data(), path + ": the record of " + name));
    FLATBENCH_RETURN_IF_ERROR(
        walker.WalkTree(tree, db.key_size, false, name, nullptr));
  }
  return walker.pages();
}

Result<LmdbPathResult> CheckedLmdbLookup(const std::string& path,
                                         const std::string& db,
                                         std::string_view key,
                                         size_t key_size) {
  FLATBENCH_ASSIGN_OR_RETURN(const LmdbMeta meta, CheckLmdbDataFile(path));
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.ok()) return Status::FromErrno("open " + path);
  PathWalker walker(fd.get(), path, meta);
  FLATBENCH_ASSIGN_OR_RETURN(const Tree main, ReadMain(&walker, path, meta));
  LmdbPathResult record;
  FLATBENCH_RETURN_IF_ERROR(walker.Lookup(main, db, 0, true, &record));
  if (!record.found) {
    return Status::Corruption(path + ": no database '" + db + "' in it");
  }
  FLATBENCH_ASSIGN_OR_RETURN(
      const Tree tree,
      ParseRecord(record.value.data(),
                  path + ": the record of database '" + db + "'"));
  LmdbPathResult out;
  FLATBENCH_RETURN_IF_ERROR(walker.Lookup(tree, key, key_size, false, &out));
  out.pages = walker.pages();
  return out;
}

}  // namespace flatbench::baselines
