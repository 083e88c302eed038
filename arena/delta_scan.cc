#include "arena/delta_scan.h"

#include <algorithm>

namespace flatbench::arena {
namespace {

// The next key of the same width above `key` (its bytes as one big-endian
// number plus one); false when `key` is the largest.
bool NextKey(std::string* key) {
  for (size_t i = key->size(); i-- > 0;) {
    auto& c = reinterpret_cast<unsigned char&>((*key)[i]);
    if (c != 0xff) {
      ++c;
      return true;
    }
    c = 0;
  }
  return false;
}

class Collector final : public ScanVisitor {
 public:
  explicit Collector(ScanPage* page) : page_(page) {}
  void Visit(std::string_view key, std::string_view value) override {
    page_->emplace_back(key, value);
  }

 private:
  ScanPage* page_;
};

}  // namespace

// The ops a page covers are those up to its last key; every one left once
// the base has ended.
Status ScanWithDelta(ReadSession& base, const std::vector<DeltaOp>& ops,
                     Table table, std::string_view start, uint32_t limit,
                     ScanVisitor* visitor, uint32_t* count, ScanPage* page) {
  *count = 0;
  auto op = std::lower_bound(
      ops.begin(), ops.end(), start,
      [](const DeltaOp& o, std::string_view k) { return o.key < k; });
  std::string cursor(start);
  bool base_done = false;
  while (*count < limit) {
    page->clear();
    if (!base_done) {
      const uint32_t want = limit - *count;
      uint32_t n = 0;
      Collector collect(page);
      FLATBENCH_RETURN_IF_ERROR(base.Scan(table, cursor, want, &collect, &n));
      base_done = n < want;
    }
    size_t i = 0;
    while (*count < limit) {
      const bool in_base = i < page->size();
      const bool in_delta =
          op != ops.end() &&
          (base_done || (!page->empty() && op->key <= page->back().first));
      if (!in_base && !in_delta) break;
      if (in_base && (!in_delta || (*page)[i].first < op->key)) {
        visitor->Visit((*page)[i].first, (*page)[i].second);
        ++*count;
        ++i;
        continue;
      }
      if (in_base && (*page)[i].first == op->key) ++i;
      if (!op->erase) {
        visitor->Visit(op->key, op->value);
        ++*count;
      }
      ++op;
    }
    if (base_done || *count >= limit) break;
    cursor = page->back().first;
    if (!NextKey(&cursor)) base_done = true;
  }
  return Status::Ok();
}

Result<uint64_t> CountWithDelta(Backend& base, Table table,
                                const std::vector<DeltaOp>& ops) {
  FLATBENCH_ASSIGN_OR_RETURN(uint64_t n, base.CountPairs(table));
  FLATBENCH_ASSIGN_OR_RETURN(auto session, base.NewSession());
  for (const DeltaOp& op : ops) {
    bool found = false;
    std::string_view v;
    FLATBENCH_RETURN_IF_ERROR(session->Get(table, op.key, &found, &v));
    if (found && op.erase) --n;
    if (!found && !op.erase) ++n;
  }
  return n;
}

Status DeltaScan::Next(bool* valid, std::string_view* key,
                       std::string_view* value) {
  for (;;) {
    if (!base_read_) {
      FLATBENCH_RETURN_IF_ERROR(base_->Next(&base_valid_, &bk_, &bv_));
      base_read_ = true;
    }
    const bool have_op = next_op_ < ops_.size();
    if (!base_valid_ && !have_op) {
      *valid = false;
      return Status::Ok();
    }
    const DeltaOp* op = have_op ? &ops_[next_op_] : nullptr;
    if (base_valid_ && (op == nullptr || bk_ < op->key)) {
      base_read_ = false;
      *valid = true;
      *key = bk_;
      *value = bv_;
      return Status::Ok();
    }
    // The op comes first, or replaces the base's pair of its key.
    if (base_valid_ && bk_ == op->key) base_read_ = false;
    ++next_op_;
    if (op->erase) continue;
    *valid = true;
    *key = op->key;
    *value = op->value;
    return Status::Ok();
  }
}

}  // namespace flatbench::arena
