#pragma once
// The live store's readers (arena/live_store.h): its sessions, and the
// ordered views of a version (its deltas layered over its base).

#include <memory>
#include <vector>

#include "arena/delta.h"
#include "arena/live_store.h"
#include "common/backend.h"

namespace flatbench::arena {

// A session of `store`, which must outlive it.
std::unique_ptr<ReadSession> NewLiveSession(const LiveStore& store);

// The ops of `table` in `version`'s deltas, ascending, the active delta's
// change of a key winning over the frozen one's. O(delta).
std::vector<DeltaOp> LayeredOps(const LiveVersion& version, Table table);

// A walk of `table` in `version` (which it pins).
Result<std::unique_ptr<TableScan>> NewLiveScan(
    std::shared_ptr<const LiveVersion> version, Table table);

}  // namespace flatbench::arena
