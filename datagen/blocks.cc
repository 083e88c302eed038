#include "datagen/blocks.h"

#include <xxhash.h>

#include <algorithm>

namespace flatbench::datagen {
namespace {

// Redraws before a change that finds no fresh live key is skipped.
constexpr int kMaxRedraws = 32;

SplitMix64 BlockRng(const dataset::Spec& spec, uint64_t block) {
  const uint64_t words[2] = {spec.stream.seed, block};
  return SplitMix64(XXH3_64bits_withSeed(words, sizeof(words), spec.seed));
}

}  // namespace

size_t KeyIdHash::operator()(const KeyId& k) const {
  const uint64_t words[3] = {static_cast<uint64_t>(k.table), k.counter, k.slot};
  return static_cast<size_t>(XXH3_64bits(words, sizeof(words)));
}

uint64_t VersionSeed(const dataset::Spec& spec, uint64_t block) {
  const uint64_t words[3] = {spec.seed, spec.stream.seed, block};
  return XXH3_64bits_withSeed(words, sizeof(words), 0x76657273696f6eULL);
}

uint64_t NewAccountCounter(const dataset::Spec& spec, uint64_t j) {
  return spec.accounts + kMissSpan + j;
}

std::string KeyBytes(const KeyId& id) {
  const AccountKey ak = MakeAccountKey(id.counter);
  if (id.table == Table::kAccount) return std::string(View(ak));
  return std::string(View(MakeStorageKey(ak, id.counter, id.slot)));
}

std::string ValueBytes(const dataset::Spec& spec, const KeyId& id,
                       const Touch* touch) {
  const uint64_t seed =
      touch == nullptr ? spec.seed : VersionSeed(spec, touch->block);
  if (id.table == Table::kAccount) {
    return std::string(MakeAccountValue(seed, id.counter).view());
  }
  return std::string(View(MakeSlotValue(seed, id.counter, id.slot)));
}

BlockStream::BlockStream(const dataset::Spec& spec)
    : spec_(spec),
      hot_count_(std::max<uint64_t>(
          1, spec.accounts * spec.stream.hot_accounts / 1000)),
      hot_order_(std::max<uint64_t>(1, spec.accounts),
                 spec.stream.seed ^ 0x686f74ULL) {}

uint64_t BlockStream::AccountCounter(uint64_t index) const {
  return index < spec_.accounts
             ? index
             : NewAccountCounter(spec_, index - spec_.accounts);
}

// A live account: from the hot set with probability hot_share, else
// uniformly over every live account. False when there is none.
bool BlockStream::DrawAccount(SplitMix64& rng, uint64_t* counter) const {
  if (LiveAccounts() == 0) return false;
  if (spec_.accounts > 0 && spec_.stream.hot_share > 0 &&
      rng.Below(1000) < spec_.stream.hot_share) {
    *counter = hot_order_(rng.Below(hot_count_));
    return true;
  }
  *counter = AccountCounter(rng.Below(LiveAccounts()));
  return true;
}

// A slot that may be live: a hot account's bulk-loaded slot with
// probability hot_share, else uniformly over every slot ever created.
bool BlockStream::DrawSlot(SplitMix64& rng, KeyId* id) const {
  const uint64_t k = spec_.slots_per_account;
  const uint64_t base = spec_.accounts * k;
  const uint64_t space = base + new_slot_counters_.size();
  if (space == 0) return false;
  id->table = Table::kStorage;
  if (k > 0 && spec_.stream.hot_share > 0 &&
      rng.Below(1000) < spec_.stream.hot_share) {
    id->counter = hot_order_(rng.Below(hot_count_));
    id->slot = rng.Below(k);
    return true;
  }
  const uint64_t x = rng.Below(space);
  if (x < base) {
    id->counter = x / k;
    id->slot = x % k;
  } else {
    id->counter = new_slot_counters_[x - base];
    id->slot = kNewSlotBase + (x - base);
  }
  return true;
}

// Not deleted, and not yet changed by the block being drawn.
bool BlockStream::Fresh(const KeyId& id) const {
  auto it = touched_.find(id);
  if (it == touched_.end()) return true;
  return !it->second.erased && it->second.block != next_block_;
}

void BlockStream::Record(const KeyId& id, bool erase, Block* out) {
  touched_[id] = Touch{static_cast<uint32_t>(next_block_), erase};
  out->changes.push_back({id, erase});
}

void BlockStream::Next(Block* out) {
  const dataset::StreamSpec& s = spec_.stream;
  out->number = next_block_;
  out->changes.clear();
  out->changes.reserve(s.changes_per_block);
  SplitMix64 rng = BlockRng(spec_, next_block_);
  // The kind of each change, by its share, in one seeded sequence.
  const uint32_t bounds[5] = {
      s.account_updates, s.account_updates + s.new_accounts,
      s.account_updates + s.new_accounts + s.slot_updates,
      s.account_updates + s.new_accounts + s.slot_updates + s.new_slots, 1000};
  for (uint32_t c = 0; c < s.changes_per_block; ++c) {
    const uint64_t pick = rng.Below(1000);
    int kind = 0;
    while (pick >= bounds[kind]) ++kind;
    KeyId id;
    bool placed = false;
    switch (kind) {
      case 0:  // An account update.
        for (int t = 0; t < kMaxRedraws && !placed; ++t) {
          id.table = Table::kAccount;
          id.slot = 0;
          placed = DrawAccount(rng, &id.counter) && Fresh(id);
        }
        if (placed) Record(id, false, out);
        break;
      case 1:  // A new account.
        id = {Table::kAccount, NewAccountCounter(spec_, new_accounts_++), 0};
        placed = true;
        Record(id, false, out);
        break;
      case 2:  // A slot update.
      case 4:  // A slot deletion.
        for (int t = 0; t < kMaxRedraws && !placed; ++t) {
          placed = DrawSlot(rng, &id) && Fresh(id);
        }
        if (placed) Record(id, kind == 4, out);
        break;
      case 3: {  // A new slot of a live account.
        uint64_t counter = 0;
        if (DrawAccount(rng, &counter)) {
          id = {Table::kStorage, counter,
                kNewSlotBase + new_slot_counters_.size()};
          new_slot_counters_.push_back(counter);
          placed = true;
          Record(id, false, out);
        }
        break;
      }
    }
    if (!placed) ++skipped_;
  }
  ++next_block_;
}

void BlockStream::SkipTo(uint64_t n) {
  Block scratch;
  while (next_block_ < n) Next(&scratch);
}

}  // namespace flatbench::datagen
