#pragma once
// The arena open for reading and writing at once (bench --write-while-
// reading): arena::LiveStore (arena/live_store.h), whose sessions read the
// unmerged blocks first and then the base, and whose merges run in the
// background and publish each new base under the readers, seen through the
// bench's LiveStore interface (common/live_store.h).

#include <memory>
#include <string>

#include "common/backend.h"
#include "common/live_store.h"

namespace flatbench::backends {

// Opens the arena store in `dir` (its log DIR.log, if any, read into the
// delta first) with merges every writer.merge_every blocks at writer.jobs.
// Errors: those of arena::LiveStore::Open.
Result<std::unique_ptr<LiveStore>> OpenArenaLive(const std::string& dir,
                                                 const OpenOptions& options,
                                                 const WriterOptions& writer);

}  // namespace flatbench::backends
