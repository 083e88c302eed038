#pragma once
// The state of a dataset after its stream's blocks (spec.stream.blocks):
// the bulk-loaded keys, each as the stream last left it, plus the keys the
// stream created. What the generator enumerates in key order (stream.h),
// what samplers draw and expect (sampler.h), what verify checks.
//
// Built by replaying the stream (blocks.h) and kept once per process for
// each spec: about 100 bytes per changed key (RESEARCH.md section 11).

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "datagen/blocks.h"
#include "dataset/spec.h"

namespace flatbench::datagen {

class AgedState {
 public:
  // Replays spec.stream.blocks blocks of spec's stream.
  explicit AgedState(const dataset::Spec& spec);

  // What the stream last did to `id`, or null if it never touched it.
  const Touch* Find(const KeyId& id) const {
    auto it = touched_.find(id);
    return it == touched_.end() ? nullptr : &it->second;
  }
  // The live keys the stream created whose key starts with byte `bucket`,
  // in `table` (any order).
  const std::vector<KeyId>& Created(Table table, int bucket) const {
    return created_[static_cast<int>(table)][bucket];
  }
  // Keys the stream created, live or deleted since, per table; the i-th
  // (by creation order) is CreatedKey(table, i).
  uint64_t created_count(Table table) const;
  KeyId CreatedKey(Table table, uint64_t i) const;
  // Live pairs per table: bulk-loaded less deleted, plus created live.
  uint64_t live_pairs(Table table) const {
    return live_pairs_[static_cast<int>(table)];
  }
  uint64_t skipped() const { return skipped_; }

 private:
  dataset::Spec spec_;
  std::unordered_map<KeyId, Touch, KeyIdHash> touched_;
  uint64_t new_accounts_ = 0;
  std::vector<uint64_t> new_slot_counters_;
  std::array<std::array<std::vector<KeyId>, 256>, kNumTables> created_;
  uint64_t live_pairs_[kNumTables] = {0, 0};
  uint64_t skipped_ = 0;
};

// Live pairs of `table` in `spec`'s state: the bulk load's count for a
// fresh spec, the aged state's otherwise.
uint64_t LivePairs(const dataset::Spec& spec, Table table);

// The state of `spec` (one per spec canonical text, made on first use and
// kept); null when spec.stream.blocks is 0. Thread-safe.
std::shared_ptr<const AgedState> AgedStateOf(const dataset::Spec& spec);

}  // namespace flatbench::datagen
