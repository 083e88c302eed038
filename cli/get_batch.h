#pragma once
// flatbench get --keys FILE: one batch (ReadSession::MultiGet) per table of
// the keys a file lists (cli/keys_file.h), each key answered on its own
// line.

#include <optional>
#include <string>
#include <vector>

#include "backends/table.h"
#include "cli/keys_file.h"
#include "common/status.h"

namespace flatbench::cli {

// Looks every key up with one MultiGet per table on `backend` and prints,
// in the file's order, "TABLE KEY VALUE" for a found key and "TABLE KEY
// not-found" for an absent one; a key whose block is corrupt or unreadable
// gets one line on stderr naming the file, table and key. `checked`, when
// not null, holds what a checked walk of the backend's pages found per key
// (as single get's check, LMDB): a disagreement is that key's corruption.
// A key with a non-ok status in `failed` (when not null) is reported with
// it and left out of the batch. Returns the exit code: the first failed
// key's (65 for corruption, 74 for I/O), else 1 when a key was not found,
// else 0; a backend that cannot open a session fails the whole command.
int LookupBatch(Backend& backend, const std::vector<BatchKey>& keys,
                const std::vector<std::optional<std::string>>* checked,
                const std::vector<Status>* failed);

// The checked walks of `keys` in `dir` with `entry`'s checked_get, one per
// key (LMDB, before its reader follows pages that keep no checksum). A key
// whose walk fails gets its error in `failures`, its walk result empty.
std::vector<std::optional<std::string>> CheckedWalks(
    const backends::Entry& entry, const std::string& dir,
    const std::vector<BatchKey>& keys, std::vector<Status>* failures);

}  // namespace flatbench::cli
