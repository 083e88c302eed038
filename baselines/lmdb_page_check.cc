#include "baselines/lmdb_page_check.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

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
constexpr int kMaxDepth = 32;
constexpr size_t kMaxKeySize = 511;  // MDB_MAXKEYSIZE

}  // namespace

Result<LmdbDbRecord> ParseLmdbDbRecord(const char* r, const std::string& what) {
  LmdbDbRecord t;
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

LmdbPageChecker::LmdbPageChecker(int fd, const std::string& path,
                                 const LmdbMeta& meta)
    : fd_(fd),
      path_(path),
      page_size_(meta.page_size),
      last_page_(meta.last_page),
      buf_(meta.page_size) {}

Status LmdbPageChecker::ReadPage(uint64_t pgno) {
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

std::string LmdbPageChecker::Where(uint64_t pgno) const {
  return path_ + ": page " + std::to_string(pgno);
}

Status LmdbPageChecker::CheckPointer(uint64_t pgno, int level) const {
  if (pgno < 2 || pgno > last_page_) {
    return Status::Corruption(path_ + ": a " + (level == 1 ? "root" : "child") +
                              " pointer names page " + std::to_string(pgno) +
                              ", outside pages 2.." +
                              std::to_string(last_page_));
  }
  return Status::Ok();
}

Status LmdbPageChecker::Bad(uint64_t pgno, bool leaf,
                            const std::string& why) const {
  return Status::Corruption(Where(pgno) + " (a " + (leaf ? "leaf" : "branch") +
                            " " + role_ + "): " + why);
}

Status LmdbPageChecker::CheckHeader(uint64_t pgno, bool leaf, size_t* upper,
                                    size_t* count) const {
  const char* p = buf_.data();
  if (Load64(p) != pgno) {
    return Bad(pgno, leaf,
               "its header names page " + std::to_string(Load64(p)));
  }
  const uint16_t flags = Load16(p + kFlagsOffset);
  if (flags != (leaf ? kLeafPage : kBranchPage)) {
    return Bad(pgno, leaf,
               "page flags " + std::to_string(flags) + ", expected " +
                   std::to_string(leaf ? kLeafPage : kBranchPage));
  }
  const size_t lower = Load16(p + kLowerOffset);
  *upper = Load16(p + kUpperOffset);
  if (lower < kPageHeader + 2 || (lower - kPageHeader) % 2 != 0 ||
      lower > *upper || *upper > page_size_ || (!leaf && lower < 20)) {
    return Bad(pgno, leaf,
               "bad bounds (lower " + std::to_string(lower) + ", upper " +
                   std::to_string(*upper) + ")");
  }
  *count = (lower - kPageHeader) / 2;
  return Status::Ok();
}

Status LmdbPageChecker::ReadNode(uint64_t pgno, bool leaf, bool subdata,
                                 size_t upper, size_t i, LmdbNodeView* node,
                                 size_t* end) const {
  const char* p = buf_.data();
  const size_t off = Load16(p + kPageHeader + 2 * i);
  if (off < upper || off + kNodeHeader > page_size_) {
    return Bad(pgno, leaf,
               "node " + std::to_string(i) + " outside the node area");
  }
  const char* n = p + off;
  node->flags = Load16(n + 4);
  const size_t ksize = Load16(n + 6);
  size_t size = kNodeHeader + ksize;
  size_t dsize = 0;
  if (leaf) {
    dsize = Load16(n) | (size_t{Load16(n + 2)} << 16);
    size += dsize;
    if (node->flags != (subdata ? kSubData : 0) ||
        (subdata && dsize != kDbRecordSize)) {
      return Bad(pgno, leaf,
                 "node " + std::to_string(i) + " has flags " +
                     std::to_string(node->flags) + " and " +
                     std::to_string(dsize) + " data bytes");
    }
  } else {
    node->child = Load16(n) | (uint64_t{Load16(n + 2)} << 16) |
                  (uint64_t{node->flags} << 32);
  }
  size += size % 2;  // Nodes start on even offsets.
  if (off + size > page_size_) {
    return Bad(pgno, leaf, "node " + std::to_string(i) + " runs past the page");
  }
  node->key = std::string_view(n + kNodeHeader, ksize);
  node->data = std::string_view(n + kNodeHeader + ksize, dsize);
  *end = off + size;
  return Status::Ok();
}

Status LmdbPageChecker::CheckNodeKey(
    uint64_t pgno, bool leaf, size_t key_size,
    const std::optional<std::string>& lo, const std::optional<std::string>& hi,
    size_t i, const LmdbNodeView& node,
    const std::vector<LmdbNodeView>& before) const {
  const size_t ksize = node.key.size();
  if (key_size != 0 ? ksize != key_size : ksize == 0 || ksize > kMaxKeySize) {
    return Bad(pgno, leaf,
               "node " + std::to_string(i) + " has a " + std::to_string(ksize) +
                   "-byte key");
  }
  const LmdbNodeView* prev =
      before.size() > (leaf ? 0u : 1u) ? &before.back() : nullptr;
  if (prev != nullptr && !(prev->key < node.key)) {
    return Bad(pgno, leaf, "keys out of order at node " + std::to_string(i));
  }
  if ((lo && node.key < *lo) || (hi && !(node.key < *hi))) {
    return Bad(pgno, leaf,
               "node " + std::to_string(i) +
                   "'s key lies outside the range its parent gives");
  }
  return Status::Ok();
}

Status LmdbPageChecker::CheckPage(uint64_t pgno, bool leaf, size_t key_size,
                                  bool subdata,
                                  const std::optional<std::string>& lo,
                                  const std::optional<std::string>& hi,
                                  std::vector<LmdbNodeView>* nodes) const {
  size_t upper = 0, count = 0;
  FLATBENCH_RETURN_IF_ERROR(CheckHeader(pgno, leaf, &upper, &count));
  // Where each node starts and ends, to check that they tile
  // [upper, page end) exactly, as LMDB keeps them.
  std::vector<std::pair<size_t, size_t>> spans;
  for (size_t i = 0; i < count; ++i) {
    LmdbNodeView node;
    size_t end = 0;
    FLATBENCH_RETURN_IF_ERROR(
        ReadNode(pgno, leaf, subdata, upper, i, &node, &end));
    spans.emplace_back(Load16(buf_.data() + kPageHeader + 2 * i), end);
    // A branch's node 0 stands for everything below node 1: its key is
    // not compared.
    if (leaf || i > 0) {
      FLATBENCH_RETURN_IF_ERROR(
          CheckNodeKey(pgno, leaf, key_size, lo, hi, i, node, *nodes));
    }
    nodes->push_back(node);
  }
  std::sort(spans.begin(), spans.end());
  size_t at = upper;
  for (const auto& [begin, end] : spans) {
    if (begin != at) return Bad(pgno, leaf, "nodes overlap or leave a gap");
    at = end;
  }
  if (at != page_size_) {
    return Bad(pgno, leaf, "nodes leave a gap at the page's end");
  }
  return Status::Ok();
}

}  // namespace flatbench::baselines
