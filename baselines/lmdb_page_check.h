#pragma once
// One page of an LMDB data file, read with pread and checked before it is
// followed, for the checked lookup and the whole-tree check (lmdb_path.h
// lists what is checked, and what no check can see); and a database's
// record (MDB_db), parsed and checked.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "baselines/lmdb_layout.h"
#include "baselines/lmdb_meta.h"
#include "common/status.h"

namespace flatbench::baselines {

// A database's record: its tree's depth and root page, and the pages and
// pairs it counts (what mdb_stat reports).
struct LmdbDbRecord {
  int depth = 0;
  uint64_t root = lmdb_layout::kInvalidPage;
  uint64_t branch_pages = 0, leaf_pages = 0, overflow_pages = 0, entries = 0;
};

// Parses the record at `r` (lmdb_layout::kDbRecordSize bytes). kCorruption
// starting with `what` for flags this project's loader never sets or a
// depth no tree has.
Result<LmdbDbRecord> ParseLmdbDbRecord(const char* r, const std::string& what);

// One node of a checked page. The views point into the checker's page
// buffer: valid until its next ReadPage.
struct LmdbNodeView {
  std::string_view key;
  std::string_view data;  // Leaves only.
  uint64_t child = 0;     // Branches only.
  uint16_t flags = 0;
};

// Reads pages of one data file into its own buffer, counts them, and checks
// them. Not thread-safe. Messages name the file and page, and the page's
// role (set_role).
class LmdbPageChecker {
 public:
  // `fd` is `path` open for reading; it must outlive the checker.
  LmdbPageChecker(int fd, const std::string& path, const LmdbMeta& meta);

  // Reads page `pgno` into the buffer. kCorruption when it lies past the
  // end of the file, kIOError when it cannot be read.
  Status ReadPage(uint64_t pgno);
  // The page last read; valid until the next ReadPage.
  const char* page() const { return buf_.data(); }
  // Pages read so far.
  uint64_t pages() const { return pages_; }
  uint64_t last_page() const { return last_page_; }
  const std::string& path() const { return path_; }

  // Where the pages checked next sit ("in the main database"), for
  // messages; "on the lookup's path" until set.
  void set_role(std::string role) { role_ = std::move(role); }

  // "PATH: page N".
  std::string Where(uint64_t pgno) const;

  // kCorruption unless `pgno`, a pointer at `level` (1: the root), names a
  // page after the meta pages and inside the file.
  Status CheckPointer(uint64_t pgno, int level) const;

  // Checks the page last read as page `pgno`: its header, kind (`leaf` or
  // branch), bounds and nodes, which must tile its node area exactly, hold
  // keys of `key_size` bytes (0: any size LMDB allows) ascending strictly
  // within [lo, hi), and, in a leaf, named databases' records when
  // `subdata`, else plain data. Appends the nodes to *nodes. kCorruption
  // naming the page and the first defect.
  Status CheckPage(uint64_t pgno, bool leaf, size_t key_size, bool subdata,
                   const std::optional<std::string>& lo,
                   const std::optional<std::string>& hi,
                   std::vector<LmdbNodeView>* nodes) const;

 private:
  // The parts of CheckPage, in order. Bad: kCorruption naming the page,
  // its kind and role, and `why`.
  Status Bad(uint64_t pgno, bool leaf, const std::string& why) const;
  // The page number, kind and bounds; the node area starts at *upper and
  // holds *count nodes.
  Status CheckHeader(uint64_t pgno, bool leaf, size_t* upper,
                     size_t* count) const;
  // Node `i`: inside the node area and the page, with the flags and data
  // size its kind allows; *end is where it ends.
  Status ReadNode(uint64_t pgno, bool leaf, bool subdata, size_t upper,
                  size_t i, LmdbNodeView* node, size_t* end) const;
  // Node `i`'s key: its size, after the nodes `before` it, inside [lo, hi).
  Status CheckNodeKey(uint64_t pgno, bool leaf, size_t key_size,
                      const std::optional<std::string>& lo,
                      const std::optional<std::string>& hi, size_t i,
                      const LmdbNodeView& node,
                      const std::vector<LmdbNodeView>& before) const;

  int fd_;
  std::string path_;
  size_t page_size_;
  uint64_t last_page_;
  std::vector<char> buf_;
  uint64_t pages_ = 0;
  std::string role_ = "on the lookup's path";
};

}  // namespace flatbench::baselines
