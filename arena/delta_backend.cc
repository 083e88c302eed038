#include "arena/delta_backend.h"

#include <algorithm>
#include <unordered_map>

#include "arena/block_log.h"
#include "arena/delta_scan.h"

namespace flatbench::arena {

namespace {

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

  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    return ScanWithDelta(*base_, delta_.ops[static_cast<int>(table)], table,
                         start, limit, visitor, count, &page_);
  }

 private:
  const Delta& delta_;
  const DeltaIndex* index_;
  std::unique_ptr<ReadSession> base_;
  ScanPage page_;
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
  auto read = ReadStoreLogs(dir, [&](uint64_t, std::span<const KeyChange> cs) {
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
  return CountWithDelta(*base_, table, delta_.ops[static_cast<int>(table)]);
}

Result<std::unique_ptr<TableScan>> DeltaBackend::OpenScan(Table table) {
  FLATBENCH_ASSIGN_OR_RETURN(auto base, base_->OpenScan(table));
  return std::unique_ptr<TableScan>(std::make_unique<DeltaScan>(
      delta_.ops[static_cast<int>(table)], std::move(base)));
}

}  // namespace flatbench::arena
