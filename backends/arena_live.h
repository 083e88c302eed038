#pragma once
// The arena open for reading and writing at once (bench --write-while-
// reading), in the shape of arena::LiveStore (a Backend whose sessions read
// the delta first and then the base, a writer(), MergeWindows()). This
// adapter is the one place that knows how it is made: until LiveStore's
// background merges land, it drives arena::MergeWriter, whose merges run
// in the writer thread, and keeps readers safe itself:
//   - every block's changes go into an in-memory delta before the writer
//     applies them, and sessions consult it first (under a shared lock that
//     no read holds while it reads the base);
//   - a merge builds the new base beside the old one and exchanges the
//     folders in one rename (arena/merge.h); sessions keep reading the old
//     base, pinned by a reference count, whose unlinked files stay mapped;
//   - only after the merge does the adapter open the new base, publish it,
//     and drop the delta the merge folded in, in one step under the lock.
// When arena::LiveStore lands, OpenArenaLive opens it instead.

#include <memory>
#include <string>

#include "common/backend.h"
#include "common/live_store.h"

namespace flatbench::backends {

// Opens the arena store in `dir` (its log DIR.log, if any, read into the
// delta first) with merges every writer.merge_every blocks at writer.jobs.
// Errors: those of ArenaBackend::Open and MergeWriter::Open.
Result<std::unique_ptr<LiveStore>> OpenArenaLive(const std::string& dir,
                                                 const OpenOptions& options,
                                                 const WriterOptions& writer);

}  // namespace flatbench::backends
