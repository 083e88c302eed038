#pragma once
// A delta: the changes to merge into an arena store, sorted, with
// deletions (arena/merge.h). On disk (FORMAT.md, "Delta files"):
//
//   "FBDELTA1"                                  8 bytes
//   records, account table first, then storage; within a table strictly
//   ascending by key:
//     u8 table (0 account, 1 storage) | u8 op (0 put, 1 erase)
//     | key (20 or 52 bytes) | put only: u16 value length (LE) | value
//   "FBDEND01" | u64 record count (LE) | u64 XXH3-64 of every byte before
//   this trailer (LE)                           24 bytes
//
// A delta is held in memory whole: it is a few blocks' changes, small
// beside the base it is merged into.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/backend.h"
#include "common/status.h"

namespace flatbench::arena {

struct DeltaOp {
  std::string key;
  bool erase = false;
  std::string value;  // Put only.
};

struct Delta {
  // Per table, strictly ascending by key.
  std::vector<DeltaOp> ops[kNumTables];

  uint64_t size() const { return ops[0].size() + ops[1].size(); }
  // Key and value bytes the ops carry: what a store must write at the least.
  uint64_t LogicalBytes() const;
};

// Checks what a delta must be before it is merged or written: keys of the
// table's width, values within the arena's limit, keys strictly ascending.
// kCorruption naming `name`, the table and the op's index.
Status CheckDelta(const Delta& delta, const std::string& name);

// The delta's file bytes. REQUIRES: CheckDelta passed.
std::string EncodeDelta(const Delta& delta);
// Parses and checks file bytes; kCorruption naming `name` and what is wrong
// (magic, a record cut short, an unknown table or op, order, the count, the
// checksum).
Result<Delta> DecodeDelta(std::string_view bytes, const std::string& name);

// The largest delta file ReadDelta takes (4 GiB): a delta is held in
// memory whole, and 100 blocks of 2,000 changes are about 20 MB.
inline constexpr uint64_t kMaxDeltaBytes = uint64_t{4} << 30;

// EncodeDelta written through "<path>.tmp", fsync and rename.
Status WriteDelta(const Delta& delta, const std::string& path);
// Reads and decodes `path`; kMissingInput when it does not exist.
Result<Delta> ReadDelta(const std::string& path);

}  // namespace flatbench::arena
