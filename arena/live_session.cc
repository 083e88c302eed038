#include "arena/live_session.h"

#include <string_view>

#include "arena/delta_scan.h"

namespace flatbench::arena {
namespace {

class LiveSession final : public ReadSession {
 public:
  explicit LiveSession(const LiveStore& store) : store_(store) {}

  Status Get(Table table, std::string_view key, bool* found,
             std::string_view* value) override {
    FLATBENCH_RETURN_IF_ERROR(Refresh());
    LiveDelta::Change change;
    if (version_->active->Find(table, key, &change) ||
        (version_->frozen && version_->frozen->Find(table, key, &change))) {
      *found = !change.erase;
      if (*found) *value = change.value;
      return Status::Ok();
    }
    return base_->Get(table, key, found, value);
  }

  // Over a snapshot of the deltas' ops: O(delta) per call.
  Status Scan(Table table, std::string_view start, uint32_t limit,
              ScanVisitor* visitor, uint32_t* count) override {
    FLATBENCH_RETURN_IF_ERROR(Refresh());
    ops_ = LayeredOps(*version_, table);
    return ScanWithDelta(*base_, ops_, table, start, limit, visitor, count,
                         &page_);
  }

 private:
  // The store's version when it changed since this session's: one atomic
  // load otherwise. The base's session is made again only for a new base.
  Status Refresh() {
    if (store_.generation() == generation_ && version_) return Status::Ok();
    auto next = store_.Current(&generation_);
    if (!version_ || next->base != version_->base) {
      // The old base's session goes before the version that holds it.
      base_.reset();
      FLATBENCH_ASSIGN_OR_RETURN(base_, next->base->NewSession());
    }
    version_ = std::move(next);
    return Status::Ok();
  }

  const LiveStore& store_;
  uint64_t generation_ = 0;
  std::shared_ptr<const LiveVersion> version_;
  std::unique_ptr<ReadSession> base_;  // Of version_->base.
  std::vector<DeltaOp> ops_;
  ScanPage page_;
};

// Owns what the walk views: the version and its layered ops.
class LiveScan final : public TableScan {
 public:
  LiveScan(std::shared_ptr<const LiveVersion> version, Table table,
           std::unique_ptr<TableScan> base)
      : version_(std::move(version)),
        ops_(LayeredOps(*version_, table)),
        scan_(ops_, std::move(base)) {}

  Status Next(bool* valid, std::string_view* key,
              std::string_view* value) override {
    return scan_.Next(valid, key, value);
  }

 private:
  std::shared_ptr<const LiveVersion> version_;
  std::vector<DeltaOp> ops_;
  DeltaScan scan_;
};

}  // namespace

std::unique_ptr<ReadSession> NewLiveSession(const LiveStore& store) {
  return std::make_unique<LiveSession>(store);
}

std::vector<DeltaOp> LayeredOps(const LiveVersion& version, Table table) {
  const int t = static_cast<int>(table);
  std::vector<DeltaOp> top = std::move(version.active->Sorted().ops[t]);
  if (!version.frozen) return top;
  std::vector<DeltaOp> under = std::move(version.frozen->Sorted().ops[t]);
  std::vector<DeltaOp> out;
  out.reserve(top.size() + under.size());
  size_t i = 0, j = 0;
  while (i < top.size() || j < under.size()) {
    if (j == under.size() || (i < top.size() && top[i].key <= under[j].key)) {
      if (j < under.size() && top[i].key == under[j].key) ++j;
      out.push_back(std::move(top[i++]));
    } else {
      out.push_back(std::move(under[j++]));
    }
  }
  return out;
}

Result<std::unique_ptr<TableScan>> NewLiveScan(
    std::shared_ptr<const LiveVersion> version, Table table) {
  FLATBENCH_ASSIGN_OR_RETURN(auto base, version->base->OpenScan(table));
  return std::unique_ptr<TableScan>(
      std::make_unique<LiveScan>(std::move(version), table, std::move(base)));
}

}  // namespace flatbench::arena
