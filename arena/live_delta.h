#pragma once
// The changes of the blocks applied since a merge, as a live store's
// readers see them (arena/live_store.h): one writer thread adds each
// block's changes while any number of readers look keys up, with no lock
// on either side.
//
// Per table, an open-addressing hash table of node pointers (linear
// probing, at most half full). A node holds its key, which never changes,
// and an atomic pointer to the key's latest change: a record holding the
// erase flag and the value. A later block's change to the same key
// publishes a new record; the old one stays, so a value a reader views is
// never freed while the delta lives. Nodes and records live in chunks the
// delta owns. The table grows by publishing a larger copy of its slots;
// the old slots stay too, for readers still probing them. Memory: every
// version of every value the delta's blocks wrote, about 70 bytes per
// node and 16 per slot beside.
//
// The writer stores a node's slot, and a node's change, with release
// order; readers load them with acquire order: a reader sees every change
// a block made once the block's Apply has returned before its lookup
// began, and may see a block being applied in part.

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "arena/delta.h"
#include "common/backend.h"

namespace flatbench::arena {

class LiveDelta {
 public:
  // A key's latest change in the delta.
  struct Change {
    bool erase = false;
    std::string_view value;  // Unless erase; valid while the delta lives.
  };

  LiveDelta();
  ~LiveDelta();
  LiveDelta(const LiveDelta&) = delete;
  LiveDelta& operator=(const LiveDelta&) = delete;

  // Writer only: records one block's changes (each key's latest wins).
  void Apply(std::span<const KeyChange> changes);

  // Any thread: the latest change of `key` in `table`; false when the
  // delta does not hold the key. No allocation, no lock.
  bool Find(Table table, std::string_view key, Change* out) const;

  // Every key's latest change, per table ascending: the merge's input. Any
  // thread; a block being applied meanwhile may be taken in part.
  Delta Sorted() const;

  // Keys held and the bytes of their latest keys and values (any thread;
  // a block being applied may be counted in part).
  uint64_t keys() const { return keys_.load(std::memory_order_relaxed); }
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  struct Record;
  struct Node;
  struct Slots;

  void Put(const KeyChange& c);
  Node* NewNode(const KeyChange& c);
  const Record* NewRecord(const KeyChange& c);
  char* Allocate(size_t bytes, size_t align);
  void Grow(int t);

  std::atomic<const Slots*> slots_[kNumTables];
  uint64_t used_[kNumTables] = {0, 0};
  // Everything the delta owns: slot arrays (old ones too), and chunks of
  // nodes and records. Writer only.
  std::vector<std::unique_ptr<Slots>> all_slots_;
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* chunk_at_ = nullptr;
  size_t chunk_left_ = 0;
  std::atomic<uint64_t> keys_{0};
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace flatbench::arena
