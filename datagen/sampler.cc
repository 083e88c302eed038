#include "datagen/sampler.h"

#include <xxhash.h>

#include <cassert>
#include <cstring>

#include "common/results_schema.h"
#include "common/rng.h"
#include "datagen/aged_state.h"

namespace flatbench::datagen {

// The contract's constants are string literals, so .data() ends in NUL.
const char* KeyKindName(KeyKind kind) {
  switch (kind) {
    case KeyKind::kHit:
      return results::kKindHit.data();
    case KeyKind::kMissAbsent:
      return results::kKindMissAbsent.data();
    case KeyKind::kMissLiveAccount:
      return results::kKindMissLive.data();
  }
  return "?";
}

bool ParseKeyKind(std::string_view name, KeyKind* out) {
  for (KeyKind k :
       {KeyKind::kHit, KeyKind::kMissAbsent, KeyKind::kMissLiveAccount}) {
    if (name == KeyKindName(k)) {
      *out = k;
      return true;
    }
  }
  return false;
}

Permutation::Permutation(uint64_t n, uint64_t seed) : n_(n) {
  int bits = 2;
  while (bits < 64 && (1ULL << bits) < n) bits += 2;
  half_bits_ = bits / 2;
  half_mask_ = (1ULL << half_bits_) - 1;
  SplitMix64 rng(seed);
  for (auto& k : round_keys_) k = rng.Next();
}

uint64_t Permutation::Encrypt(uint64_t x) const {
  uint64_t left = x >> half_bits_, right = x & half_mask_;
  for (uint64_t key : round_keys_) {
    uint64_t f = XXH3_64bits_withSeed(&right, sizeof(right), key) & half_mask_;
    uint64_t next = left ^ f;
    left = right;
    right = next;
  }
  return (left << half_bits_) | right;
}

uint64_t Permutation::operator()(uint64_t i) const {
  assert(i < n_);
  // The domain is at most 4x larger than n, so the expected walk is short.
  uint64_t x = Encrypt(i);
  while (x >= n_) x = Encrypt(x);
  return x;
}

namespace {

uint64_t SpaceFor(const dataset::Spec& spec, const AgedState* aged, Table table,
                  KeyKind kind) {
  switch (kind) {
    case KeyKind::kHit:
      return (table == Table::kAccount ? spec.accounts : spec.storage_slots()) +
             (aged == nullptr ? 0 : aged->created_count(table));
    case KeyKind::kMissAbsent:
      return kMissSpan;
    case KeyKind::kMissLiveAccount:
      return spec.accounts * kMissSlotSpan;
  }
  return 0;
}

}  // namespace

Sampler::Sampler(const dataset::Spec& spec, Table table, KeyKind kind,
                 uint64_t draw_seed)
    : spec_(spec),
      table_(table),
      kind_(kind),
      aged_(AgedStateOf(spec)),
      perm_(SpaceFor(spec, aged_.get(), table, kind), draw_seed) {
  assert(!(table == Table::kAccount && kind == KeyKind::kMissLiveAccount));
  assert(table == Table::kAccount || spec.slots_per_account > 0);
}

void Sampler::Locate(uint64_t i, uint64_t* counter, uint64_t* slot) const {
  uint64_t x = perm_(i % perm_.size());
  const uint64_t k = spec_.slots_per_account;
  switch (kind_) {
    case KeyKind::kHit: {
      const uint64_t base =
          table_ == Table::kAccount ? spec_.accounts : spec_.storage_slots();
      // Bounded: a stream that deleted every key of a table leaves no hit.
      KeyId id;
      for (uint64_t step = 0; step < perm_.size(); ++step) {
        if (x < base) {
          id = {table_, table_ == Table::kAccount ? x : x / k,
                table_ == Table::kAccount ? 0 : x % k};
        } else {
          id = aged_->CreatedKey(table_, x - base);
        }
        const Touch* t = aged_ == nullptr ? nullptr : aged_->Find(id);
        if (t == nullptr || !t->erased) {
          *counter = id.counter;
          *slot = id.slot;
          return;
        }
        x = (x + 1) % perm_.size();
      }
      *counter = id.counter;
      *slot = id.slot;
      return;
    }
    case KeyKind::kMissAbsent:
      *counter = spec_.accounts + x;
      *slot = k == 0 ? 0 : x % k;
      return;
    case KeyKind::kMissLiveAccount:
      *counter = x / kMissSlotSpan;
      *slot = k + x % kMissSlotSpan;
      return;
  }
}

void Sampler::DrawKey(uint64_t i, uint8_t* out) const {
  uint64_t counter, slot;
  Locate(i, &counter, &slot);
  AccountKey ak = MakeAccountKey(counter);
  if (table_ == Table::kAccount) {
    std::memcpy(out, ak.data(), ak.size());
  } else {
    StorageKey sk = MakeStorageKey(ak, counter, slot);
    std::memcpy(out, sk.data(), sk.size());
  }
}

SampledKey Sampler::Draw(uint64_t i) const {
  uint64_t counter, slot;
  Locate(i, &counter, &slot);
  SampledKey out;
  AccountKey ak = MakeAccountKey(counter);
  out.expect_found = kind_ == KeyKind::kHit;
  if (table_ == Table::kAccount) {
    out.key.assign(View(ak));
  } else {
    out.key.assign(View(MakeStorageKey(ak, counter, slot)));
  }
  if (out.expect_found) {
    const KeyId id{table_, counter, slot};
    out.expected_value =
        ValueBytes(spec_, id, aged_ == nullptr ? nullptr : aged_->Find(id));
  }
  return out;
}

}  // namespace flatbench::datagen
