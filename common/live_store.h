#pragma once
// A store open for reading and writing at once, as a running node holds
// it: the bench's writing passes (bench/writing_pass.h) read it through
// backend() on many threads while one thread applies blocks through
// writer(). Made by the backends table's `live` hook (backends/table.h).

#include <cstdint>
#include <memory>
#include <vector>

#include "common/backend.h"

namespace flatbench {

// One merge of a store that keeps itself packed by merges (the arena): the
// seconds since the store was opened (steady clock) at which it started
// and ended, and the first and last block (numbered from the first block
// this store applied, 0) whose changes it folded into the new base.
struct MergeWindow {
  double start_s = 0;
  double end_s = 0;
  uint64_t first_block = 0;
  uint64_t last_block = 0;
};

// What the store's own statistics say its background work did since it was
// opened: RocksDB's compactions and the bytes they wrote; zero where the
// store has no such work (LMDB, the file store) or counts its merges as
// windows instead (the arena).
struct BackgroundWork {
  bool known = false;  // The store counts it.
  uint64_t compactions = 0;
  uint64_t compaction_bytes_written = 0;
};

// Thread-safety: backend() is used as a Backend is (sessions on any
// thread); writer() is driven from one thread; MergeWindows and Background
// may be called from any thread.
class LiveStore {
 public:
  virtual ~LiveStore() = default;
  // Every read session sees each block either wholly or not at all, and a
  // block once seen stays seen: a Get started after writer().ApplyBlock
  // returned sees that block's changes.
  virtual Backend& backend() = 0;
  virtual StoreWriter& writer() = 0;
  // Whether the store merges (the arena): the bench then keeps its pass
  // going until one merge has ended.
  virtual bool Merges() const { return false; }
  // The merges that ended so far, in order.
  virtual std::vector<MergeWindow> MergeWindows() const { return {}; }
  virtual BackgroundWork Background() const { return {}; }
};

}  // namespace flatbench
