#pragma once
// The arena's upkeep: a base store (DIR/account.arena, DIR/storage.arena)
// and a delta of changes (arena/delta.h) make a new store whose files are
// those a bulk load of the merged state writes with the same options:
// byte-identical to a fresh build of that state.
//
// Streaming: each table's 256 shards are read from the base one at a time,
// merged with the delta's ops of that shard and built as the bulk load
// builds them (BuildShard), up to `jobs` shards on threads of their own
// while the calling thread appends finished ones in order. Memory: the
// delta, plus jobs + 1 shards in flight, each its merged pairs and its
// image (about twice the shard's bytes): for a store of P pairs of S bytes,
// (jobs + 1) x 2 x P x S / 256 per table.
//
// Atomic: the new store is written to DIR.merge (a leftover of an
// interrupted merge is removed first), made durable, then exchanged with
// DIR in one rename (renameat2 RENAME_EXCHANGE) and the old base removed.
// Interrupted anywhere, DIR holds the whole old base or the whole new one;
// a merge repeated on the new one changes nothing (puts write the same
// values, an erase of an absent key is counted and skipped).

#include <csignal>
#include <cstdint>
#include <string>

#include "arena/builder.h"
#include "arena/delta.h"
#include "common/backend.h"
#include "common/status.h"

namespace flatbench::arena {

struct MergeStats {
  uint64_t pairs_in[kNumTables] = {0, 0};   // The base's.
  uint64_t pairs_out[kNumTables] = {0, 0};  // The new store's.
  uint64_t replaced = 0;                    // Puts of a key the base holds.
  uint64_t added = 0;                       // Puts of a key it does not.
  uint64_t erased = 0;                      // Erases of a key it holds.
  uint64_t erase_absent = 0;  // Erases of a key it does not (skipped).
  uint64_t bytes_in = 0;      // The base files' sizes.
  uint64_t bytes_out = 0;     // The new files' sizes.
  double seconds = 0;
};

// The new store's sibling folder while it is written.
std::string MergeDir(const std::string& dir);

// Merges `delta` into the store in `dir`. `options` as the store was built
// with (key_width is set per table). Errors: the base's (kCorruption naming
// the file, kMissingInput when a file is missing), the delta's (CheckDelta),
// kIOError for writes and, when *stop turns non-zero between shards,
// "stopped"; every error leaves `dir` as it was and removes DIR.merge.
Result<MergeStats> MergeStore(const std::string& dir, const Delta& delta,
                              const BuilderOptions& options, unsigned jobs,
                              const volatile std::sig_atomic_t* stop = nullptr);

}  // namespace flatbench::arena
