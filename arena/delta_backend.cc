#include "arena/delta_backend.h"

#include <algorithm>
#include <unordered_map>

#include "arena/delta_log.h"

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

using DeltaIndex = std::unordered_map<std::string_view, uint32_t>;

class DeltaSession final : public ReadSession {
 public:
  DeltaSession(const Delta& delta, const DeltaIndex* index,
               std::unique_ptr<ReadSession> base)
      : delta_(delta), index_(index), base_(std::move(base)) {}

  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    const int t = static_cast<int>(table);
    if (auto it = index_[t].find(key); it != index_[t].end()) {
      const DeltaOp& op = delta_.ops[t][it->second];
      *found = !op.erase;
      if (*found) *value = op.value;
      return Status::Ok();
    }
    return base_->Get(table, key, found, value);
  }

  // The base read a page at a time from `start`, merged with the delta's
  // ops that page covers (up to its last key; every one left once the base
  // has ended): a put in its place, an erase leaving its key out.
  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    *count = 0;
    const auto& ops = delta_.ops[static_cast<int>(table)];
    auto op = std::lower_bound(
        ops.begin(), ops.end(), start,
        [](const DeltaOp& o, std::string_view k) { return o.key < k; });
    std::string cursor(start);
    bool base_done = false;
    while (*count < limit) {
      page_.clear();
      if (!base_done) {
        const uint32_t want = limit - *count;
        uint32_t n = 0;
        Collector collect(&page_);
        FLATBENCH_RETURN_IF_ERROR(
            base_->Scan(table, cursor, want, &collect, &n));
        base_done = n < want;
      }
      size_t i = 0;
      while (*count < limit) {
        const bool base = i < page_.size();
        const bool delta =
            op != ops.end() &&
            (base_done || (!page_.empty() && op->key <= page_.back().first));
        if (!base && !delta) break;
        if (base && (!delta || page_[i].first < op->key)) {
          visitor->Visit(page_[i].first, page_[i].second);
          ++*count;
          ++i;
          continue;
        }
        if (base && page_[i].first == op->key) ++i;
        if (!op->erase) {
          visitor->Visit(op->key, op->value);
          ++*count;
        }
        ++op;
      }
      if (base_done || *count >= limit) break;
      cursor = page_.back().first;
      if (!NextKey(&cursor)) base_done = true;
    }
    return Status::Ok();
  }

 private:
  using Page = std::vector<std::pair<std::string, std::string>>;
  class Collector final : public ScanVisitor {
   public:
    explicit Collector(Page* page) : page_(page) {}
    void Visit(std::string_view key, std::string_view value) override {
      page_->emplace_back(key, value);
    }

   private:
    Page* page_;
  };

  const Delta& delta_;
  const DeltaIndex* index_;
  std::unique_ptr<ReadSession> base_;
  Page page_;
};

// The base's scan merged with the delta's ops.
class DeltaScan final : public TableScan {
 public:
  DeltaScan(const std::vector<DeltaOp>& ops, std::unique_ptr<TableScan> base)
      : ops_(ops), base_(std::move(base)) {}

  Status Next(bool* valid, std::string_view* key,
              std::string_view* value) override {
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

 private:
  const std::vector<DeltaOp>& ops_;
  std::unique_ptr<TableScan> base_;
  size_t next_op_ = 0;
  bool base_read_ = false;
  bool base_valid_ = false;
  std::string_view bk_, bv_;
};

}  // namespace

Result<std::unique_ptr<DeltaBackend>> DeltaBackend::Open(
    const std::string& dir, const OpenOptions& options) {
  std::unique_ptr<DeltaBackend> b(new DeltaBackend());
  FLATBENCH_ASSIGN_OR_RETURN(b->base_,
                             ArenaBackend::Open(dir, options, ReadPath::kMmap));
  b->log_ = LogPath(dir);
  std::unordered_map<std::string, std::pair<bool, std::string>>
      pending[kNumTables];
  auto read = ReadLog(b->log_, [&](uint64_t, std::span<const KeyChange> cs) {
    for (const KeyChange& c : cs) {
      auto& slot = pending[static_cast<int>(c.table)][std::string(c.key)];
      slot.first = c.erase;
      slot.second.assign(c.erase ? std::string_view() : c.value);
    }
    return true;
  });
  if (!read.ok() && read.status().code() != Code::kMissingInput) {
    return read.status();
  }
  if (read.ok()) {
    b->blocks_ = read->records;
    b->bytes_ = read->bytes;
  }
  for (int t = 0; t < kNumTables; ++t) {
    auto& ops = b->delta_.ops[t];
    ops.reserve(pending[t].size());
    for (auto& [key, change] : pending[t]) {
      ops.push_back({key, change.first, std::move(change.second)});
    }
    std::sort(ops.begin(), ops.end(),
              [](const DeltaOp& x, const DeltaOp& y) { return x.key < y.key; });
  }
  FLATBENCH_RETURN_IF_ERROR(CheckDelta(b->delta_, b->log_));
  for (int t = 0; t < kNumTables; ++t) {
    const auto& ops = b->delta_.ops[t];
    b->index_[t].reserve(ops.size());
    for (uint32_t i = 0; i < ops.size(); ++i)
      b->index_[t].emplace(ops[i].key, i);
  }
  return b;
}

Result<std::unique_ptr<ReadSession>> DeltaBackend::NewSession() {
  FLATBENCH_ASSIGN_OR_RETURN(auto base, base_->NewSession());
  return std::unique_ptr<ReadSession>(
      std::make_unique<DeltaSession>(delta_, index_, std::move(base)));
}

uint64_t DeltaBackend::ResidentMetadataBytes() const {
  return base_->ResidentMetadataBytes() + delta_.LogicalBytes();
}

Settings DeltaBackend::Describe() const {
  Settings s = base_->Describe();
  s.emplace_back("delta", std::to_string(blocks_) + " blocks from " + log_ +
                              " (" + std::to_string(bytes_) + " bytes): " +
                              std::to_string(delta_.size()) + " keys, " +
                              std::to_string(delta_.LogicalBytes()) +
                              " bytes of keys and values in memory, "
                              "consulted before the base");
  return s;
}

Result<uint64_t> DeltaBackend::CountPairs(Table table) const {
  FLATBENCH_ASSIGN_OR_RETURN(uint64_t n, base_->CountPairs(table));
  FLATBENCH_ASSIGN_OR_RETURN(auto session, base_->NewSession());
  for (const DeltaOp& op : delta_.ops[static_cast<int>(table)]) {
    bool found = false;
    std::string_view v;
    FLATBENCH_RETURN_IF_ERROR(session->Get(table, op.key, &found, &v));
    if (found && op.erase) --n;
    if (!found && !op.erase) ++n;
  }
  return n;
}

Result<std::unique_ptr<TableScan>> DeltaBackend::OpenScan(Table table) {
  FLATBENCH_ASSIGN_OR_RETURN(auto base, base_->OpenScan(table));
  return std::unique_ptr<TableScan>(std::make_unique<DeltaScan>(
      delta_.ops[static_cast<int>(table)], std::move(base)));
}

}  // namespace flatbench::arena
