#pragma once
// The filesystem store aged as a store of one file per key writes it
// (flatbench age): one file operation per change, a put replacing the
// key's file whole, an erase unlinking it.

#include <memory>
#include <string>

#include "common/backend.h"

namespace flatbench::baselines {

// Opens the store in `dir` (fs_layout.h) for writing. A put writes the
// value to a temporary file in `dir` (outside both tables' trees, whose
// names the reader checks) and renames it over the key's file, creating
// the key's folders when new; readers see the old value or the new one,
// never part of one. An erase unlinks the key's file (none: nothing to do)
// and leaves its folders. Checkpoint and Finish make everything durable
// with one syncfs. Upkeep: per table its files, folders and bytes on disk.
// kMissingInput when either table's folder is missing.
Result<std::unique_ptr<StoreWriter>> NewFsStoreWriter(const std::string& dir);

}  // namespace flatbench::baselines
