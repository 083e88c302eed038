#pragma once
// Hit and miss keys drawn from the whole key space, with their expected
// values, without storing a key pool.
//
// A Sampler walks a seeded pseudo-random permutation of the hit (or miss)
// index space, so the first n draws of one Sampler are n distinct keys,
// spread uniformly over every shard of the dataset.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/backend.h"
#include "datagen/keys.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

enum class KeyKind {
  kHit,              // A key that is in the dataset.
  kMissAbsent,       // An account that was never written (both tables).
  kMissLiveAccount,  // Storage only: a live account, a slot never written.
};
const char* KeyKindName(KeyKind kind);  // "hit", "miss-absent", "miss-live"
bool ParseKeyKind(std::string_view name, KeyKind* out);

// A bijection on [0, n) built from a 4-round Feistel network over the next
// power of four, cycle-walking values that land outside [0, n).
class Permutation {
 public:
  Permutation(uint64_t n, uint64_t seed);
  // REQUIRES: i < n.
  uint64_t operator()(uint64_t i) const;
  uint64_t size() const { return n_; }

 private:
  uint64_t Encrypt(uint64_t x) const;
  uint64_t n_;
  int half_bits_;
  uint64_t half_mask_;
  uint64_t round_keys_[4];
};

// One sampled key: its bytes, and for hits the expected value.
struct SampledKey {
  std::string key;
  bool expect_found = false;
  std::string expected_value;  // Empty unless expect_found.
};

class AgedState;

// For an aged spec (spec.stream.blocks > 0), hits are drawn from the aged
// state's live keys (bulk-loaded ones the stream left, then the ones it
// created) and expect the value the stream last wrote; a draw that lands
// on a deleted key takes the next live index.
class Sampler {
 public:
  // REQUIRES: kind != kMissLiveAccount for the account table, and
  // spec.slots_per_account > 0 for the storage table.
  Sampler(const dataset::Spec& spec, Table table, KeyKind kind,
          uint64_t draw_seed);
  // Number of distinct keys this sampler can draw before it repeats.
  uint64_t space() const { return perm_.size(); }
  // The i-th draw (i is taken modulo space()).
  SampledKey Draw(uint64_t i) const;
  // Key bytes only, into `out` (KeySize(table) bytes); no allocation.
  void DrawKey(uint64_t i, uint8_t* out) const;

 private:
  void Locate(uint64_t i, uint64_t* counter, uint64_t* slot) const;
  dataset::Spec spec_;
  Table table_;
  KeyKind kind_;
  std::shared_ptr<const AgedState> aged_;  // Null for a fresh spec.
  Permutation perm_;
};

// Miss counters used for absent accounts: [accounts, accounts + kMissSpan).
inline constexpr uint64_t kMissSpan = 1ULL << 32;
// Slots used for live-account misses: [slots, slots + kMissSlotSpan).
inline constexpr uint64_t kMissSlotSpan = 1ULL << 16;

}  // namespace flatbench::datagen
