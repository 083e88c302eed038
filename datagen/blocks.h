#pragma once
// The stream of blocks that ages a dataset, as a live node sees it: each
// block overwrites accounts and slots, creates accounts and slots, and
// deletes slots (dataset::StreamSpec sets how many of each).
//
// Every change is a pure function of the spec and of the blocks before it:
// BlockStream replays the stream from block 0, keeping only what the draws
// depend on (the live key counts and what was deleted). Keys are the
// generator's (counter, slot) pairs, outside every range the samplers draw
// misses from:
//   - a new account is counter accounts + kMissSpan + j (the j-th created);
//   - a new slot is slot kNewSlotBase + j of a live account (the j-th
//     created), so it never meets a live-account miss slot.
// A value written by block b is made as the bulk load makes values, from a
// seed of its own (VersionSeed), so every version of a key differs.
//
// Within a block a key changes at most once; a deleted slot is never drawn
// again (Ethereum does not revive a cleared slot under the same write: a
// later write is a new slot). Accounts are never deleted (EIP-6780).
//
// Memory: 8 bytes per new slot plus the touched-key map, about 64 bytes per
// distinct key the stream has changed.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/backend.h"
#include "common/rng.h"
#include "datagen/keys.h"
#include "datagen/sampler.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

inline constexpr uint64_t kNewSlotBase = uint64_t{1} << 40;

// A key by its generator identity (slot 0 for an account).
struct KeyId {
  Table table = Table::kAccount;
  uint64_t counter = 0;
  uint64_t slot = 0;
  bool operator==(const KeyId& o) const {
    return table == o.table && counter == o.counter && slot == o.slot;
  }
};
struct KeyIdHash {
  size_t operator()(const KeyId& k) const;
};

// One change of a block: the key is written with the block's version of
// its value, or deleted.
struct Change {
  KeyId id;
  bool erase = false;
};

struct Block {
  uint64_t number = 0;
  std::vector<Change> changes;  // In draw order; each key at most once.
};

// What the stream last did to a key it touched.
struct Touch {
  uint32_t block = 0;  // The block that last wrote or deleted it.
  bool erased = false;
};

// The seed of the values block `block` writes.
uint64_t VersionSeed(const dataset::Spec& spec, uint64_t block);
// The counter of the `j`-th new account.
uint64_t NewAccountCounter(const dataset::Spec& spec, uint64_t j);
// The key bytes of `id` (KeySize(id.table) bytes).
std::string KeyBytes(const KeyId& id);
// The value `id` holds: the bulk load's when `touch` is null, else the one
// block touch->block wrote. REQUIRES: touch is null or not erased.
std::string ValueBytes(const dataset::Spec& spec, const KeyId& id,
                       const Touch* touch);

class BlockStream {
 public:
  // Starts before block 0 of spec.stream (spec.stream.blocks is ignored).
  explicit BlockStream(const dataset::Spec& spec);

  // Draws the next block into *out and applies it to the stream's state.
  void Next(Block* out);
  // Draws and applies blocks until next_block() == n (no-op if past it).
  void SkipTo(uint64_t n);
  uint64_t next_block() const { return next_block_; }

  // The state after the blocks drawn so far.
  const std::unordered_map<KeyId, Touch, KeyIdHash>& touched() const {
    return touched_;
  }
  // The state, moved out: the stream is spent.
  std::unordered_map<KeyId, Touch, KeyIdHash> TakeTouched() && {
    return std::move(touched_);
  }
  uint64_t new_accounts() const { return new_accounts_; }
  // The account counter of each new slot, by creation order.
  const std::vector<uint64_t>& new_slot_counters() const {
    return new_slot_counters_;
  }
  // Changes the draws could not place (no live slot left to update or
  // delete after bounded redraws); 0 in any stream of sensible shares.
  uint64_t skipped() const { return skipped_; }

 private:
  uint64_t LiveAccounts() const { return spec_.accounts + new_accounts_; }
  uint64_t AccountCounter(uint64_t index) const;
  bool DrawAccount(SplitMix64& rng, uint64_t* counter) const;
  bool DrawSlot(SplitMix64& rng, KeyId* id) const;
  bool Fresh(const KeyId& id) const;
  void Record(const KeyId& id, bool erase, Block* out);

  dataset::Spec spec_;
  uint64_t next_block_ = 0;
  uint64_t new_accounts_ = 0;
  std::vector<uint64_t> new_slot_counters_;
  std::unordered_map<KeyId, Touch, KeyIdHash> touched_;
  uint64_t hot_count_ = 0;  // Base accounts in the hot set.
  Permutation hot_order_;   // Which base accounts those are.
  uint64_t skipped_ = 0;
};

}  // namespace flatbench::datagen
