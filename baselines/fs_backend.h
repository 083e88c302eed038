#pragma once
// Filesystem reference store: one file per key, its value as the file's
// content, in a two-level hex fan-out (fs_layout.h), as LDK-node's
// filesystem store keeps one file per key. A reference row: measured like
// the others, never gated unless thresholds.json names it. Built only up to
// smoke scale (fs_layout::kMaxPairs); see RESEARCH.md, "Filesystem store".

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Opens the store in `dir` (DIR/account and DIR/storage). kMissingInput if
// either folder is missing. Get opens, reads and closes the key's file
// (relative to the table's folder, held open); a value view stays valid
// until the next Get or Scan on that session or its destruction. Scan lists
// folders in name order from the seek key. No metadata is preloaded: the
// store has none beyond the filesystem's own directories.
Result<std::unique_ptr<Backend>> OpenFsStore(const std::string& dir,
                                             const OpenOptions& options);

// A loader that writes each pair's file under DIR/<table>.loading and, at
// Finish, makes everything durable with one syncfs and renames both
// folders into place; an unfinished load leaves nothing OpenFsStore opens.
Result<std::unique_ptr<BulkLoader>> NewFsStoreLoader(const std::string& dir);

}  // namespace flatbench::baselines
