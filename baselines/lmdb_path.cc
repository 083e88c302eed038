#include "baselines/lmdb_path.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "baselines/lmdb_layout.h"
#include "baselines/lmdb_meta.h"
#include "baselines/lmdb_page_check.h"
#include "common/files.h"

namespace flatbench::baselines {
namespace {

using lmdb_layout::kInvalidPage;

// The main database's MDB_db in a meta page: after the page header, magic,
// version, map address, map size and the free database's record.
constexpr size_t kMainDbOffset = lmdb_layout::kPageHeader + 24 + 48;

// The walks over checked pages: one key's path, or every page of a tree.
class PathWalker {
 public:
  explicit PathWalker(LmdbPageChecker* pages) : pages_(*pages) {}

  // Descends `tree` to `key`. `key_size` is the size every key of the tree
  // has, or 0 when they vary (the main database). `subdata`: the tree's leaf
  // nodes are named databases' records.
  Status Lookup(const LmdbDbRecord& tree, std::string_view key, size_t key_size,
                bool subdata, LmdbPathResult* out) {
    out->found = false;
    if (tree.root == kInvalidPage) return Status::Ok();  // Empty.
    std::optional<std::string> lo;
    std::optional<std::string> hi;
    uint64_t pgno = tree.root;
    for (int level = 1;; ++level) {
      const bool leaf = level == tree.depth;
      FLATBENCH_RETURN_IF_ERROR(pages_.CheckPointer(pgno, level));
      FLATBENCH_RETURN_IF_ERROR(pages_.ReadPage(pgno));
      std::vector<LmdbNodeView> nodes;
      FLATBENCH_RETURN_IF_ERROR(
          pages_.CheckPage(pgno, leaf, key_size, subdata, lo, hi, &nodes));
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
  Status WalkTree(const LmdbDbRecord& tree, size_t key_size, bool subdata,
                  const std::string& name,
                  std::vector<std::pair<std::string, std::string>>* records) {
    if (seen_.empty()) seen_.resize(pages_.last_page() + 1);
    pages_.set_role("in " + name);
    const std::string what = "the record of " + name;
    LmdbDbRecord found;
    if (tree.root != kInvalidPage) {  // Else empty: it must count nothing.
      FLATBENCH_RETURN_IF_ERROR(Visit(tree.root, 1, tree.depth, key_size,
                                      subdata, std::nullopt, std::nullopt,
                                      records, &found));
    }
    auto differ = [&](const char* field, uint64_t counted, uint64_t walked) {
      return Status::Corruption(pages_.path() + ": " + what + " counts " +
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
  // One page of WalkTree at `level` (1: the root) of a tree `depth` deep,
  // whose keys must lie in [lo, hi); adds what it holds to *found.
  Status Visit(uint64_t pgno, int level, int depth, size_t key_size,
               bool subdata, const std::optional<std::string>& lo,
               const std::optional<std::string>& hi,
               std::vector<std::pair<std::string, std::string>>* records,
               LmdbDbRecord* found) {
    const bool leaf = level == depth;
    FLATBENCH_RETURN_IF_ERROR(pages_.CheckPointer(pgno, level));
    if (seen_[pgno]) {
      return Status::Corruption(pages_.Where(pgno) + " is reached twice");
    }
    seen_[pgno] = true;
    FLATBENCH_RETURN_IF_ERROR(pages_.ReadPage(pgno));
    std::vector<LmdbNodeView> nodes;
    FLATBENCH_RETURN_IF_ERROR(
        pages_.CheckPage(pgno, leaf, key_size, subdata, lo, hi, &nodes));
    if (leaf) {
      ++found->leaf_pages;
      found->entries += nodes.size();
      if (records != nullptr) {
        for (const LmdbNodeView& n : nodes)
          records->emplace_back(n.key, n.data);
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

  static Status FindInLeaf(const std::vector<LmdbNodeView>& nodes,
                           std::string_view key, LmdbPathResult* out) {
    for (const LmdbNodeView& n : nodes) {
      if (n.key == key) {
        out->found = true;
        out->value.assign(n.data);
        break;
      }
    }
    return Status::Ok();
  }

  LmdbPageChecker& pages_;
  std::vector<bool> seen_;  // By page number; WalkTree's pages so far.
};

// The newer meta page, read and checked, and the main database's record in
// it.
Result<LmdbDbRecord> ReadMain(LmdbPageChecker* pages, const std::string& path,
                              const LmdbMeta& meta) {
  FLATBENCH_RETURN_IF_ERROR(pages->ReadPage(meta.meta_page));
  return ParseLmdbDbRecord(pages->page() + kMainDbOffset,
                           path + ": meta page " +
                               std::to_string(meta.meta_page) +
                               "'s main database record");
}

}  // namespace

Result<uint64_t> CheckLmdbTrees(const std::string& path,
                                const std::vector<LmdbTreeSpec>& dbs) {
  FLATBENCH_ASSIGN_OR_RETURN(const LmdbMeta meta, CheckLmdbDataFile(path));
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.ok()) return Status::FromErrno("open " + path);
  LmdbPageChecker pages(fd.get(), path, meta);
  PathWalker walker(&pages);
  FLATBENCH_ASSIGN_OR_RETURN(const LmdbDbRecord main,
                             ReadMain(&pages, path, meta));
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
        const LmdbDbRecord tree,
        ParseLmdbDbRecord(it->second.data(), path + ": the record of " + name));
    FLATBENCH_RETURN_IF_ERROR(
        walker.WalkTree(tree, db.key_size, false, name, nullptr));
  }
  return pages.pages();
}

Result<LmdbPathResult> CheckedLmdbLookup(const std::string& path,
                                         const std::string& db,
                                         std::string_view key,
                                         size_t key_size) {
  FLATBENCH_ASSIGN_OR_RETURN(const LmdbMeta meta, CheckLmdbDataFile(path));
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.ok()) return Status::FromErrno("open " + path);
  LmdbPageChecker pages(fd.get(), path, meta);
  PathWalker walker(&pages);
  FLATBENCH_ASSIGN_OR_RETURN(const LmdbDbRecord main,
                             ReadMain(&pages, path, meta));
  LmdbPathResult record;
  FLATBENCH_RETURN_IF_ERROR(walker.Lookup(main, db, 0, true, &record));
  if (!record.found) {
    return Status::Corruption(path + ": no database '" + db + "' in it");
  }
  FLATBENCH_ASSIGN_OR_RETURN(
      const LmdbDbRecord tree,
      ParseLmdbDbRecord(record.value.data(),
                        path + ": the record of database '" + db + "'"));
  LmdbPathResult out;
  FLATBENCH_RETURN_IF_ERROR(walker.Lookup(tree, key, key_size, false, &out));
  out.pages = pages.pages();
  return out;
}

}  // namespace flatbench::baselines
